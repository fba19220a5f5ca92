#!/usr/bin/env python3
"""Every measured figure in the README and the docs comes with the command
that prints it and the kind of machine it ran on.

    check_figures.py [FILE ...]
        (default: README.md, docs/*.md, Benchmarks/README.md and the DocC catalog, docs/*.docc/**/*.md)

A measured figure is a number with a unit of time, size, rate, share or
ratio: `14.5 ms`, `3 min 8 s`, `81 bytes/place`, `256 MB/s`, `69 updates/s`,
`12 %`, `8.7x`. Each must sit in a block that names

- the command: a code span or a `$ ` line of a code block that runs
  `stroll SUBCOMMAND` (a real subcommand), `make TARGET` (a target of the
  Makefile), `swift package benchmark`, `perf-floor`, or a script of the
  repository (a path that exists); and
- the machine: its processor (`AMD EPYC`, `Intel ...`, `Apple M1` ...) or its
  size (`2 vCPUs`, `2-core`).

The block is the paragraph or list item holding the figure (a list also
takes the paragraph that introduces it with a colon); for a table, the
table with its heading row and the paragraph just before it; for a code
block, the block with the paragraph just before it.

A figure that is a figure per place or per pin (`81 bytes/place`) must
also say how it is had: from the resident set (`RSS`, `resident`) or from
the arrays' strides (`stride`), which is arithmetic, not memory measured.

Not measurements, and so not checked: text in code spans (options and
quoted output, `--timeout 2 s`); the example output of a command that
measures nothing (a code block whose `$ ` lines run no benchmark); a
sentence that states a default, a limit or a refusal; a sentence citing a
publication (a year in parentheses); a confidence level (`68 % circle`); an
input's size (`50 MB files`); a block that names the source file defining
its values (`Sources/.../File.swift`). Fails, naming file, line, figure and
what is missing, on any other; exit 0 when there is none.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

NUMBER = r"(?<![\w.^/-])\d+(?:[ \u202f,]\d{3})*(?:\.\d+)?(?:[-–]\d+(?:\.\d+)?)?"
UNIT = (r"(?:µs|us|ns|ms|s|sec|min|h|KB|kB|KiB|MB|MiB|GB|GiB|TB|bytes?(?:/(?:place|pin)| per (?:place|pin))?"
        r"|MB/s|GB/s|updates/s|points/s|events/s|fixes/s|/s|%|x|×)")
FIGURE = re.compile(NUMBER + r"(?: ?)" + UNIT + r"(?![\w/])")
PER_ITEM = re.compile(r"bytes?(?:/| per )(?:place|pin)")
MACHINE = re.compile(r"\b\d+[ -]?(?:vCPUs?|cores?)\b|\bAMD\b|\bEPYC\b|\bIntel\b|\bXeon\b|\bRyzen\b|Apple M\d|\bGraviton|\bNeoverse")
CONSTANT = re.compile(r"\b(?:default|defaults|limit|limits|limited|refused|refuses|at most|at least|allows|allowed|timeout)\b", re.I)
CITATION = re.compile(r"\([^()]*\b(?:19|20)\d\d\b[^()]*\)")
INPUT_SIZE = re.compile(r"\d+ ?(?:KB|MB|GB|KiB|MiB|GiB) (?:[A-Z][\w.]* )?files?\b")
CONFIDENCE = re.compile(r"\d+ ?% (?:circle|radius|confidence|interval|figures?|horizontal accuracy)")
SOURCE_FILE = re.compile(r"`(Sources/[^`\s]+\.swift)`")
CODE_SPAN = re.compile(r"`[^`]*`")
WRAPPERS = {"nice", "time", "/usr/bin/time", "env", "bash", "sh", "python", "python3"}
STROLL_SUBCOMMANDS = {"replay", "batch", "bench", "trace", "places", "geodesic", "serve", "route", "geocode", "search"}


def makefile_targets():
    targets = set()
    for line in open(os.path.join(ROOT, "Makefile"), encoding="utf-8"):
        m = re.match(r"^([A-Za-z0-9_-]+(?: [A-Za-z0-9_-]+)*):(?!=)", line)
        if m:
            targets.update(m.group(1).split())
    return targets


TARGETS = makefile_targets()


def is_command(text, prompt=False):
    """Whether `text` (a code span, or a `$ ` line when `prompt`) runs a command of the repository."""
    words = text.replace("\\\n", " ").split()
    while words and re.match(r"^[A-Z_]+=", words[0]):         # VAR=value prefixes
        if "perf-floor" in words[0]:
            return True
        words = words[1:]
    while words and words[0] in WRAPPERS:                    # nice -n 10, /usr/bin/time -f %M, python3 ...
        words = words[1:]
        while words and re.match(r"^(?:-|%|\d+$)", words[0]):
            words = words[1:]
    if not words:
        return False
    head = words[0]
    if "perf-floor" in text:
        return True
    if os.path.basename(head) == "stroll":
        # A bare `stroll` in prose names the binary; on a `$ ` line it replays the bundled walk.
        return (prompt and len(words) == 1) or (len(words) > 1 and (words[1] in STROLL_SUBCOMMANDS or words[1].startswith("-")))
    if head == "make":
        return len(words) > 1 and all(w in TARGETS for w in words[1:] if not w.startswith("-") and "=" not in w)
    if head == "swift":
        return "benchmark" in words                            # swift package [--options] benchmark
    path = head.lstrip("./")
    return ("/" in path or path.endswith((".py", ".sh"))) and os.path.isfile(os.path.join(ROOT, path))


def is_measuring(command):
    """Whether a command measures (its figures are measurements, not an example's values)."""
    return bool(re.search(r"\bstroll bench\b|\bmake bench|perf-floor|benchmark|/usr/bin/time|\btime\b|Benchmarks/", command))


def names_command(text):
    spans = [s[1:-1] for s in CODE_SPAN.findall(text)]
    prompts = [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("$ ")]
    return any(is_command(s) for s in spans) or any(is_command(p, prompt=True) for p in prompts)


def names_source(text):
    return any(os.path.isfile(os.path.join(ROOT, p)) for p in SOURCE_FILE.findall(text))


def blocks(lines):
    """(kind, first line number, text) for each block: heading, code, table, item, para."""
    out, i, n = [], 0, len(lines)
    while i < n:
        line = lines[i]
        s = line.strip()
        if not s or s.startswith("<!--"):
            i += 1
            continue
        start = i
        if s.startswith("```") or s.startswith("~~~"):
            fence = s[:3]
            i += 1
            while i < n and not lines[i].strip().startswith(fence):
                i += 1
            out.append(("code", start, "\n".join(lines[start:i + 1])))
            i += 1
        elif s.startswith("#"):
            out.append(("heading", start, s))
            i += 1
        elif s.startswith("|"):
            while i < n and lines[i].strip().startswith("|"):
                i += 1
            out.append(("table", start, "\n".join(lines[start:i])))
        else:
            item = re.match(r"^\s*(?:[-*+]|\d+\.)\s", line) is not None
            i += 1
            while i < n and lines[i].strip() and not lines[i].strip().startswith(("```", "~~~", "|", "#")):
                if re.match(r"^\s*(?:[-*+]|\d+\.)\s", lines[i]):
                    break
                i += 1
            out.append(("item" if item else "para", start, "\n".join(lines[start:i])))
    return out


def sentences(text):
    """(offset, sentence) of each sentence of `text`."""
    start = 0
    for m in re.finditer(r"(?<=[.;!?])\s+(?=[A-Z`(*\[])", text):
        yield start, text[start:m.start()]
        start = m.end()
    yield start, text[start:]


def prose_figures(text, first_line):
    """(line number, figure) of each measured figure in prose, constants left out."""
    found = []
    for offset, sentence in sentences(text):
        if CONSTANT.search(sentence) or CITATION.search(sentence):
            continue
        bare = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), sentence)
        bare = CONFIDENCE.sub(lambda m: " " * len(m.group(0)), bare)
        bare = INPUT_SIZE.sub(lambda m: " " * len(m.group(0)), bare)
        for m in FIGURE.finditer(bare):
            found.append((first_line + text[:offset + m.start()].count("\n"), m.group(0)))
    return found


def check(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    shown = os.path.relpath(path, ROOT) if os.path.abspath(path).startswith(ROOT + os.sep) else path
    bs = blocks(lines)
    problems = []
    for k, (kind, start, text) in enumerate(bs):
        if kind == "heading":
            continue
        before = bs[k - 1] if k > 0 else None
        caption = before[2] if before and before[0] == "para" and before[1] + before[2].count("\n") + 2 >= start else ""
        if kind == "code":
            body = text.splitlines()[1:-1]
            prompts = [l.strip()[2:] for l in body if l.strip().startswith("$ ")]
            if prompts and not any(is_measuring(p) for p in prompts):
                continue            # a command's example output, not a measurement
            figs = []
            for j, l in enumerate(body):
                if not l.strip().startswith("$ "):
                    figs.extend((start + 2 + j, f) for _, f in prose_figures(l, 0))
            context = caption + "\n" + "\n".join("$ " + p for p in prompts)
        elif kind == "table":
            figs = []
            for j, l in enumerate(text.splitlines()):
                cells = CODE_SPAN.sub(" ", l)
                figs.extend((start + 1 + j, m.group(0)) for m in FIGURE.finditer(cells))
            context = caption + "\n" + text.splitlines()[0]
        else:
            figs = prose_figures(text, start + 1)
            context = text
            if kind == "item":
                # The paragraph that introduces the list (the nearest before it, ending with a colon).
                for b in reversed(bs[:k]):
                    if b[0] == "para":
                        if b[2].rstrip().endswith(":"):
                            context += "\n" + b[2]
                        break
                    if b[0] != "item":
                        break
        if not figs:
            continue
        if names_source(context):
            continue
        reasons = []
        if not names_command(context):
            reasons.append("no command")
        if not MACHINE.search(context):
            reasons.append("no machine")
        for line, fig in figs:
            why = list(reasons)
            if PER_ITEM.search(fig) and not re.search(r"\bRSS\b|resident|stride", context, re.I):
                why.append("a per-place figure neither measured (RSS) nor said to be stride arithmetic")
            if why:
                problems.append(f"{shown}:{line}: {fig!r}: {', '.join(why)}")
    return problems


def main(argv):
    files = argv[1:] or ([os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
                         + [os.path.join(ROOT, "Benchmarks", "README.md")]
                         + sorted(glob.glob(os.path.join(ROOT, "docs", "*.docc", "**", "*.md"), recursive=True)))
    problems = [p for f in files for p in check(f)]
    for p in problems:
        print(p)
    if problems:
        print(f"check_figures: {len(problems)} measured figures without the command and the machine that print them "
              "(see Tests/IntegrationTests/docs/check_figures.py)", file=sys.stderr)
        return 1
    print(f"check_figures: every measured figure in {len(files)} files names its command and machine")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
