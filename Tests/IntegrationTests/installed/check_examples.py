#!/usr/bin/env python3
"""Every documented `stroll` example, run with the stroll found on PATH.

    check_examples.py DIR [--only TEXT] [--list] [--selftest]

DIR is the directory of the `stroll` to run (`/usr/bin` for the installed
package). Each example runs as `env -i PATH=DIR:/usr/bin:/bin HOME=<empty
temporary directory> bash -o pipefail -c COMMAND`, standard input
/dev/null, from a temporary copy of the repository's tracked files (the same
layout as the repository root, so `traces/…` and `Fixtures/…` resolve as
they do for a reader in a checkout; Fuzz/'s corpora, nine tenths of the
files and no example's input, are left out). The repository itself is never
written: files an example writes (`-o walk.gpx`, `--out runs`) land in the
copy, and the check fails if `git status` of the repository differs after
the run. The examples of one source (a document, or one command's help)
run in order in one copy, so an example can use what an earlier one of the
same source wrote (`--record golden.json`, then `--verify golden.json`).

Where the examples come from (nothing is listed here: a new example is
checked once it is in a document or a help text):

- README.md, every Markdown file under docs/ (docs/Stroll.docc included),
  and every other tracked README.md: in fenced blocks, `$ ` lines of
  `console` and untyped blocks, every line of `sh`/`bash`/`shell` blocks, and
  indented (four spaces) code lines after a blank line; each taken when it
  runs stroll (`stroll …`, `VAR=… stroll …`, or `… | stroll …`), with
  backslash-continued lines joined. docs/CLI.md's untyped synopsis block
  (`stroll replay [TRACE] [options]`) has no `$ ` lines: a grammar, not
  examples.
- `stroll --help` and the `--help` of every command and subcommand that
  `stroll --experimental-dump-help` lists: the lines of their `Example:` /
  `Examples:` sections that run stroll, and any other line that starts with
  `stroll ` or `$ stroll `.

Pass: the exit code expected (0, or N where the example's trailing comment
says `# exit N`, alone or followed by punctuation) and some output: for exit
0, something on standard output or a file written in the copy; for another
code, something on standard output or standard error. A command with
`| head` may also end 141 (stroll stopped by the closed pipe, as
docs/CLI.md allows). `stroll serve` runs until it has printed its
addresses and every address printed has answered (gpsd's VERSION on
connect, a line of NMEA, the web view's page), then gets Ctrl-C (SIGINT)
and must end with exit 0.

Skipped, each printed with its reason: examples that need a Ray cluster
(`--ray`; `make test-ray` runs them) or a PostgreSQL server (`postgresql://`
URIs; `make test-postgis`).

Each failure is printed with its command, source, exit code and the first
lines of its standard error, then the counts per source and the total,
`N passed, M failed, K skipped`. Exit 1 when any example failed.

--selftest shows the check failing: against a `stroll` that prints nothing
and exits 1, and one that prints nothing and exits 0, every example must
fail; a `stroll` whose --experimental-dump-help fails must stop the check.
--list prints the examples found without running them; --only TEXT runs
those whose command contains TEXT.
"""
import argparse
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 300            # seconds an example may take (the million-place benches take ~20 s)
SERVE_TIMEOUT = 60       # seconds for serve to print its addresses and each to answer
STDERR_LINES = 8

# A shell line that runs stroll: at its start or after a pipe or separator,
# after any VAR=value assignments.
INVOKES = re.compile(r"(?:^|[|;&(]\s*)(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*stroll(?:\s|$)")
EXPECT = re.compile(r"(?:^|\s)#\s*exits?\s+(\d+)\s*(?:$|[.,;:])")
SKIPS = [
    (re.compile(r"(?:^|\s)--ray(?:\s|=|$)"), "needs a Ray cluster (make test-ray runs stroll batch --ray)"),
    (re.compile(r"postgres(?:ql)?://"), "needs a PostgreSQL server with PostGIS (make test-postgis)"),
]


@dataclass
class Example:
    command: str
    source: str          # where it was found: FILE:LINE or `stroll CMD --help`
    group: str           # the sources whose examples share one copy, in order
    expect: int = 0
    skip: str | None = None


@dataclass
class Result:
    example: Example
    passed: bool
    exit: int | None = None
    reason: str = ""
    stderr: str = ""
    stdout: str = ""
    seconds: float = 0.0
    outputs: list = field(default_factory=list)


# --- finding the examples ----------------------------------------------------

def invokes_stroll(command):
    return INVOKES.search(command) is not None


def expected_exit(command):
    match = EXPECT.search(command)
    return int(match.group(1)) if match else 0


def skip_reason(command):
    for pattern, reason in SKIPS:
        if pattern.search(command):
            return reason
    return None


def make_example(command, source, group):
    return Example(command=command, source=source, group=group,
                   expect=expected_exit(command), skip=skip_reason(command))


def join_continued(lines, i, first):
    """The command starting with `first` (line i), backslash continuations joined."""
    command = first
    while command.endswith("\\") and i + 1 < len(lines):
        i += 1
        command = command[:-1].rstrip() + " " + lines[i].strip()
    return command, i


def markdown_examples(path):
    rel = path.relative_to(ROOT).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    fence = None
    language = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        opening = re.match(r"^\s*(```+|~~~+)\s*([\w+-]*)", line)
        if fence is None and opening:
            fence, language = opening.group(1), opening.group(2).lower()
            i += 1
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
                i += 1
                continue
            text = line.strip()
            command = None
            if language in ("sh", "bash", "shell", "zsh"):
                if text and not text.startswith("#"):
                    command = text[2:] if text.startswith("$ ") else text
            elif language in ("", "console", "shell-session", "text"):
                if text.startswith("$ "):
                    command = text[2:]
            if command is not None:
                start = i
                command, i = join_continued(lines, i, command)
                if invokes_stroll(command):
                    found.append(make_example(command, f"{rel}:{start + 1}", rel))
            i += 1
            continue
        # An indented code block: four spaces after a blank line.
        if (line.startswith("    ") and i > 0 and not lines[i - 1].strip()
                and re.match(r"^(\$ )?stroll(\s|$)", line.strip())):
            text = line.strip()
            command, end = join_continued(lines, i, text[2:] if text.startswith("$ ") else text)
            found.append(make_example(command, f"{rel}:{i + 1}", rel))
            i = end
        i += 1
    return found


def documents():
    files = {ROOT / "README.md"}
    files.update(p for p in (ROOT / "docs").rglob("*.md"))
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "*README.md"],
                            capture_output=True, text=True, check=True).stdout.split()
    files.update(ROOT / p for p in listed)
    return sorted(p for p in files if p.is_file())


def clean_env(stroll_dir, home):
    path = ":".join(dict.fromkeys([stroll_dir, "/usr/bin", "/bin"]))
    return {"PATH": path, "HOME": home}


def run_stroll(stroll_dir, args, cwd):
    with tempfile.TemporaryDirectory(prefix="stroll-home-") as home:
        return subprocess.run(["stroll", *args], cwd=cwd, env=clean_env(stroll_dir, home),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def command_paths(stroll_dir):
    """Every command path `stroll --experimental-dump-help` lists, the root first."""
    import json
    run = run_stroll(stroll_dir, ["--experimental-dump-help"], ROOT)
    if run.returncode != 0:
        raise SystemExit(f"error: stroll --experimental-dump-help exited {run.returncode}: "
                         f"{run.stderr.strip()[:500]}")
    try:
        root = json.loads(run.stdout)["command"]
    except (ValueError, KeyError) as error:
        raise SystemExit(f"error: stroll --experimental-dump-help printed no command tree ({error})")
    paths = []

    def walk(command, path):
        paths.append(path)
        for sub in command.get("subcommands", []):
            walk(sub, path + [sub["commandName"]])

    walk(root, [])
    return paths


def help_examples(stroll_dir):
    found = []
    for path in command_paths(stroll_dir):
        source = "stroll " + " ".join(path + ["--help"])
        run = run_stroll(stroll_dir, path + ["--help"], ROOT)
        if run.returncode != 0 or not run.stdout.strip():
            raise SystemExit(f"error: `{source}` exited {run.returncode} and printed "
                             f"{len(run.stdout)} characters: {run.stderr.strip()[:500]}")
        lines = run.stdout.splitlines()
        in_examples = False
        i = 0
        while i < len(lines):
            line = lines[i]
            text = line.strip()
            if re.match(r"^Examples?:$", text):
                in_examples = True
                i += 1
                continue
            if in_examples and (not text or not line.startswith(" ")):
                in_examples = False
            if text and (in_examples or re.match(r"^(\$ )?stroll\s", text)):
                start = i
                command, i = join_continued(lines, i, text[2:] if text.startswith("$ ") else text)
                if invokes_stroll(command):
                    found.append(make_example(command, f"{source} (line {start + 1})", source))
            i += 1
    return found


def all_examples(stroll_dir):
    found = []
    for document in documents():
        found += markdown_examples(document)
    found += help_examples(stroll_dir)
    return found


# --- running them -----------------------------------------------------------

def workspace(base, group):
    """A copy of the repository's tracked files for one source's examples."""
    target = Path(base) / "sources" / re.sub(r"[^A-Za-z0-9.]+", "_", group)
    if target.exists():
        return target
    master = Path(base) / "tracked"
    if not master.exists():
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"],
                                capture_output=True, check=True).stdout.split(b"\0")
        for name in listed:
            if not name or name.startswith(b"Fuzz/"):
                continue   # the fuzz corpora: nine tenths of the files, no example's input
            source = ROOT / os.fsdecode(name)
            if not source.is_file():
                continue   # deleted in the work tree, or a submodule
            destination = master / os.fsdecode(name)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    target.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", str(master), str(target)], check=True)
    return target


def snapshot(directory):
    state = {}
    for dirpath, _, files in os.walk(directory):
        for name in files:
            path = os.path.join(dirpath, name)
            try:
                info = os.stat(path)
            except OSError:
                continue
            state[path] = (info.st_size, info.st_mtime_ns)
    return state


def written(before, after, cwd):
    return sorted(os.path.relpath(p, cwd) for p, v in after.items() if before.get(p) != v)


def shell(command, stroll_dir, home):
    return ["env", "-i", *(f"{k}={v}" for k, v in clean_env(stroll_dir, home).items()),
            "bash", "-o", "pipefail", "-c", command]


def first_lines(text, count=STDERR_LINES):
    lines = text.strip().splitlines()
    more = f"\n      … ({len(lines) - count} more lines)" if len(lines) > count else ""
    return "\n".join("      " + line for line in lines[:count]) + more


def subcommand(command):
    """The first word after `stroll` that is not an option."""
    words = shlex.split(command, comments=True)
    try:
        start = words.index("stroll")
    except ValueError:
        return None
    for word in words[start + 1:]:
        if not word.startswith("-"):
            return word
    return None


def answers(kind, address):
    """Whether a served address answers as its protocol says it does."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if host in ("0.0.0.0", "::", "*"):
        host = "127.0.0.1"
    if kind == "http":
        with urllib.request.urlopen(f"http://{host}:{port}/", timeout=10) as response:
            return response.status == 200 and len(response.read()) > 0, f"HTTP {response.status}"
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.settimeout(20)
        reader = connection.makefile("rb")
        if kind == "gpsd":
            line = reader.readline().decode("utf-8", "replace")
            return '"class":"VERSION"' in line, line.strip()[:120]
        if kind == "nmea":
            line = reader.readline().decode("ascii", "replace")
            return line.startswith("$") and "*" in line, line.strip()[:120]
    return False, f"unknown service {kind}"


def run_serve(example, cwd, stroll_dir, home):
    """serve: its addresses printed, each answering, then Ctrl-C and exit 0."""
    with tempfile.TemporaryFile("w+") as stderr:
        process = subprocess.Popen(shell(example.command, stroll_dir, home), cwd=cwd,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=stderr, text=True, start_new_session=True)
        try:
            return watch_serve(example, process, stderr)
        finally:
            if process.poll() is None:      # never left running, whatever happened
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def watch_serve(example, process, stderr):
    lines = queue.Queue()
    out = []

    def read_stdout():
        for line in process.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    reader = threading.Thread(target=read_stdout, daemon=True)
    reader.start()
    deadline = time.monotonic() + SERVE_TIMEOUT
    served = []
    ready = ended = False
    while not ready and not ended:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            ended = True
            break
        out.append(line)
        match = re.match(r"^serving (\w+) on (\S+)", line)
        if match:
            served.append((match.group(1), match.group(2)))
        ready = line.startswith("replaying ")
    problems = []
    if not ready:
        problems.append("ended before its banner (`replaying …`)" if ended
                        else f"no banner (`replaying …`) within {SERVE_TIMEOUT} s")
    if not served and ready:
        problems.append("printed no `serving KIND on HOST:PORT` line")
    answered = []
    for kind, address in served if ready else []:
        try:
            ok, what = answers(kind, address)
        except OSError as error:
            ok, what = False, str(error)
        answered.append(f"{kind} {address}: {what}")
        if not ok:
            problems.append(f"{kind} on {address} did not answer as it should: {what}")
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
    try:
        code = process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        problems.append("still running 20 s after Ctrl-C")
    reader.join(timeout=5)
    stderr.seek(0)
    err = stderr.read()
    code = process.returncode
    if code != 0 and not problems:
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit {code}"
        problems.append(f"{how} after Ctrl-C (SIGINT) once its banner was printed (expected exit 0)")
    return Result(example, not problems, exit=code, reason="; ".join(problems),
                  stderr=err, stdout="\n".join(out), outputs=answered)


def run_example(example, cwd, stroll_dir):
    with tempfile.TemporaryDirectory(prefix="stroll-home-") as home:
        began = time.monotonic()
        if subcommand(example.command) == "serve":
            result = run_serve(example, cwd, stroll_dir, home)
            result.seconds = time.monotonic() - began
            return result
        before = snapshot(cwd)
        try:
            run = subprocess.run(shell(example.command, stroll_dir, home), cwd=cwd,
                                 stdin=subprocess.DEVNULL, capture_output=True,
                                 timeout=TIMEOUT, start_new_session=True)
        except subprocess.TimeoutExpired as timeout:
            return Result(example, False, reason=f"still running after {TIMEOUT} s",
                          stderr=(timeout.stderr or b"").decode("utf-8", "replace"),
                          seconds=time.monotonic() - began)
        seconds = time.monotonic() - began
        stdout = run.stdout.decode("utf-8", "replace")
        stderr = run.stderr.decode("utf-8", "replace")
        files = written(before, snapshot(cwd), cwd)
        code = run.returncode
        allowed = {example.expect}
        if example.expect == 0 and re.search(r"\|\s*head\b", example.command):
            allowed.add(141)
        if code not in allowed:
            expected = " or ".join(str(c) for c in sorted(allowed))
            reason = f"exit {code}, expected {expected}"
        elif example.expect == 0 and not stdout.strip() and not files:
            reason = "printed nothing on standard output and wrote no file"
        elif example.expect != 0 and not (stdout.strip() or stderr.strip()):
            reason = "said nothing (no message on standard error)"
        else:
            reason = ""
        return Result(example, not reason, exit=code, reason=reason, stderr=stderr, stdout=stdout,
                      seconds=seconds, outputs=files)


def run_all(examples, stroll_dir, quiet=False):
    results = []
    with tempfile.TemporaryDirectory(prefix="stroll-examples-") as base:
        for example in examples:
            if example.skip:
                results.append(Result(example, False, reason=example.skip))
                if not quiet:
                    print(f"SKIP {example.source}: {example.command}\n      {example.skip}")
                continue
            result = run_example(example, workspace(base, example.group), stroll_dir)
            results.append(result)
            if quiet:
                continue
            if result.passed:
                verb = "answered" if subcommand(example.command) == "serve" else "wrote"
                extra = f" {verb} {', '.join(result.outputs[:4])}" if result.outputs else ""
                print(f"PASS {example.source} ({result.seconds:.1f} s){extra}: {example.command}")
            else:
                print(f"FAIL {example.source}: {example.command}\n"
                      f"      {result.reason} ({result.seconds:.1f} s)")
                if result.stderr.strip():
                    print("      stderr:\n" + first_lines(result.stderr))
                elif result.stdout.strip():
                    print("      stdout (standard error was empty):\n" + first_lines(result.stdout))
    return results


def counts(results):
    passed = sum(r.passed for r in results)
    skipped = sum(1 for r in results if r.example.skip)
    return passed, len(results) - passed - skipped, skipped


def report(results):
    print("\nper source:")
    sources = {}
    for result in results:
        key = result.example.group
        sources.setdefault(key, []).append(result)
    for source, group in sources.items():
        passed, failed, skipped = counts(group)
        print(f"  {source:<52} {len(group):3} found: {passed} passed, {failed} failed, {skipped} skipped")
    failures = [r for r in results if not r.passed and not r.example.skip]
    if failures:
        print("\nfailed:")
        for result in failures:
            print(f"  {result.example.source}: {result.example.command}\n      {result.reason}")
            if result.stderr.strip():
                print(first_lines(result.stderr, 3))
    passed, failed, skipped = counts(results)
    print(f"\n{len(results)} examples")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return failed


def git_status():
    return subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True, check=True).stdout


def fake_stroll(directory, script):
    path = Path(directory) / "stroll"
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(0o755)
    return str(directory)


def selftest(stroll_dir):
    examples = all_examples(stroll_dir)
    runnable = [e for e in examples if not e.skip]
    print(f"selftest: {len(examples)} examples found with the real stroll, {len(runnable)} to run")
    ok = True
    with tempfile.TemporaryDirectory(prefix="stroll-fake-") as fake:
        for name, script in [("exits 1, prints nothing", "exit 1"),
                             ("exits 0, prints nothing", "exit 0")]:
            results = run_all(runnable, fake_stroll(fake, script), quiet=True)
            passed = [r for r in results if r.passed]
            if passed:
                ok = False
                print(f"selftest FAILED: with a stroll that {name}, {len(passed)} examples passed:")
                for result in passed[:10]:
                    print(f"  {result.example.source}: {result.example.command}")
            else:
                print(f"selftest: with a stroll that {name}, all {len(results)} examples failed, as they must")
        fake_stroll(fake, 'case "$1" in --experimental-dump-help) exit 70;; esac\nexec "$REAL" "$@"'
                    .replace("$REAL", shlex.quote(os.path.join(stroll_dir, "stroll"))))
        run = subprocess.run([sys.executable, __file__, fake, "--list"], capture_output=True, text=True)
        if run.returncode == 0:
            ok = False
            print("selftest FAILED: a stroll whose --experimental-dump-help fails did not stop the check")
        else:
            print("selftest: a stroll whose --experimental-dump-help fails stops the check: "
                  + run.stderr.strip().splitlines()[-1][:120])
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir", help="the directory of the stroll to run (/usr/bin when installed)")
    parser.add_argument("--only", help="run only the examples whose command contains this text")
    parser.add_argument("--list", action="store_true", help="list the examples found; run none")
    parser.add_argument("--selftest", action="store_true", help="show the check failing on a wrong stroll")
    args = parser.parse_args()
    stroll_dir = os.path.abspath(args.dir)
    if not os.access(os.path.join(stroll_dir, "stroll"), os.X_OK):
        raise SystemExit(f"error: no executable stroll in {stroll_dir}")
    if args.selftest:
        sys.exit(0 if selftest(stroll_dir) else 1)
    examples = all_examples(stroll_dir)
    if args.list:
        for example in examples:
            note = f"  [skip: {example.skip}]" if example.skip else ""
            expect = f"  [exit {example.expect}]" if example.expect else ""
            print(f"{example.source}: {example.command}{expect}{note}")
        print(f"{len(examples)} examples")
        return
    if args.only:
        examples = [e for e in examples if args.only in e.command]
    if not examples:
        raise SystemExit("error: no example found")
    print(f"{len(examples)} examples, run with {stroll_dir}/stroll under env -i PATH={clean_env(stroll_dir, '')['PATH']}")
    status = git_status()
    results = run_all(examples, stroll_dir)
    failed = report(results)
    if git_status() != status:
        print("error: the check changed the repository (git status differs)")
        failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
