#!/usr/bin/env python3
"""`stroll replay --format jsonl` gives the same bytes as the recorded run.

Every bundled walk (traces/) and every real trace in Fixtures/real-traces
that Stroll can replay, each in two configurations: the defaults, and a
noisy one (Gauss-Markov noise, an urban canyon, the iOS warm-up, the
error applied printed, Liverpool's environments, circular and polygon
regions, clustering, a followed map). expected.json holds each run's SHA-256, line count and byte
count, recorded from the release that added this check; a change of the
replay's bytes fails here, naming the run and, with --keep DIR, leaving
both outputs there to diff.

    check_bytes.py STROLL             compare
    check_bytes.py STROLL --record    write expected.json from STROLL's runs
    check_bytes.py STROLL --keep DIR  compare, writing each differing run to DIR
    check_bytes.py STROLL --selftest  the check shown failing: one digit of one
                                      line of one walk changed, and one line
                                      dropped, are each reported for that run
"""
import argparse, glob, hashlib, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
EXPECTED = os.path.join(HERE, "expected.json")

CONFIGURATIONS = {
    "defaults": [],
    "noisy": ["--noise", "gauss-markov", "--seed", "7", "--environment", "urban-canyon", "--warm-up", "ios",
              "--environments", "Fixtures/environments/liverpool.geojson", "--debug-truth",
              "--regions", "Tests/IntegrationTests/replay/regions.geojson", "--cluster", "--follow"],
}


def walks():
    files = sorted(glob.glob(os.path.join(ROOT, "traces", "*.gpx")) + glob.glob(os.path.join(ROOT, "traces", "*.csv")))
    files += sorted(f for f in glob.glob(os.path.join(ROOT, "Fixtures", "real-traces", "*", "*"))
                    if f.rsplit(".", 1)[-1] in ("gpx", "kml", "tcx", "csv"))
    return [os.path.relpath(f, ROOT) for f in files]


def run(stroll, walk, configuration):
    args = [stroll, "replay", walk, "--format", "jsonl"] + CONFIGURATIONS[configuration]
    p = subprocess.run(args, cwd=ROOT, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def compare(runs, expected):
    """The differences between runs and the recorded ones, and how many runs replayed anything."""
    failures = []
    replayed = 0
    for name, want in expected.items():
        got = runs.get(name)
        if got is None:
            failures.append(f"{name}: no longer run (the file is gone)")
            continue
        if got["exit"] == 0 and got["lines"] > 0:
            replayed += 1
        if any(got[k] != want[k] for k in ("exit", "sha256", "lines", "bytes")):
            failures.append(f"{name}: exit {got['exit']}, {got['lines']} lines, {got['bytes']} bytes, sha256 {got['sha256'][:12]}; "
                            f"recorded exit {want['exit']}, {want['lines']} lines, {want['bytes']} bytes, sha256 {want['sha256'][:12]}")
    for name in runs:
        if name not in expected:
            failures.append(f"{name}: not recorded (run with --record to add it)")
    return failures, replayed


def summary(code, out):
    return {"exit": code, "sha256": hashlib.sha256(out).hexdigest(), "lines": out.count(b"\n"), "bytes": len(out), "_out": out}


def selftest(stroll, expected):
    """One walk's real output passes; with one digit changed, or one line dropped, it fails naming the walk."""
    name = "traces/lime-street-to-campus.gpx defaults"
    walk, configuration = name.rsplit(" ", 1)
    code, out, _ = run(stroll, walk, configuration)
    lines = out.split(b"\n")
    line = lines[100]
    k = max(i for i, b in enumerate(line) if 0x30 <= b <= 0x39)
    changed = line[:k] + bytes([0x30 + (line[k] - 0x30 + 1) % 10]) + line[k + 1:]
    cases = {"unchanged": out,
             "one digit changed": b"\n".join(lines[:100] + [changed] + lines[101:]),
             "one line dropped": b"\n".join(lines[:100] + lines[101:])}
    ok = True
    for case, bytes_ in cases.items():
        failures, _ = compare({name: summary(code, bytes_)}, {name: expected[name]})
        wanted = case != "unchanged"
        if bool(failures) != wanted or (wanted and name not in failures[0]):
            print(f"FAIL: selftest, {case}: {'no failure' if not failures else failures}")
            ok = False
        else:
            print(f"ok: selftest, {case}: {failures[0] if failures else 'passes'}")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stroll")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    stroll = os.path.abspath(a.stroll)
    if a.selftest:
        return selftest(stroll, json.load(open(EXPECTED)))
    runs = {}
    for walk in walks():
        for configuration in CONFIGURATIONS:
            code, out, err = run(stroll, walk, configuration)
            runs[f"{walk} {configuration}"] = summary(code, out)
    if a.record:
        with open(EXPECTED, "w") as f:
            json.dump({k: {x: y for x, y in v.items() if x != "_out"} for k, v in runs.items()}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"recorded {len(runs)} runs in {os.path.relpath(EXPECTED, ROOT)}")
        return 0
    expected = json.load(open(EXPECTED))
    failures, replayed = compare(runs, expected)
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        for name, got in runs.items():
            if name in expected and got["sha256"] != expected[name]["sha256"]:
                with open(os.path.join(a.keep, name.replace("/", "_").replace(" ", "-") + ".jsonl"), "wb") as f:
                    f.write(got["_out"])
    # Something must have been compared: the bundled walks replay.
    if replayed < 5:
        failures.append(f"only {replayed} runs replayed anything")
    if failures:
        print("FAIL: stroll replay's bytes changed:")
        for f in failures:
            print("  " + f)
        return 1
    print(f"ok: {len(expected)} replays byte for byte as recorded ({replayed} with events)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
