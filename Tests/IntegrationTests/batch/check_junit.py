#!/usr/bin/env python3
"""Checks `stroll batch --junit` with junitparser, an independent JUnit XML
reader (the format GitHub Actions, GitLab and Jenkins read).

A suite of the bundled walks and the real device traces is recorded with
--record-dir, then verified twice with --verify-dir and --junit: unchanged
(every case passes), and with one lecture theatre moved 200 m (the walks
whose own `stroll replay --verify` fails must be exactly the failures, each
with its first divergence as the message). A walk with no golden is an error.

usage: check_junit.py STROLL
"""
import json
import os
import subprocess
import sys
import tempfile

from junitparser import Error, Failure, JUnitXml, Skipped

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def main():
    stroll = sys.argv[1]
    walks = sorted(os.path.join(ROOT, "traces", f) for f in os.listdir(os.path.join(ROOT, "traces")) if f.endswith((".gpx", ".csv")))
    real = os.path.join(ROOT, "Fixtures", "real-traces")
    walks += sorted(os.path.join(d, f) for d, _, files in os.walk(real) for f in files
                    if f.endswith((".gpx", ".csv", ".kml", ".tcx", ".geojson", ".nmea", ".plt")))
    places = os.path.join(ROOT, "Fixtures", "lecture-theatres.json")
    with tempfile.TemporaryDirectory() as tmp:
        goldens = os.path.join(tmp, "goldens")
        r = run([stroll, "batch", *walks, "--out", os.path.join(tmp, "a"), "--places", places, "--record-dir", goldens])
        # Some real traces are broken on purpose (no usable fix): they fail with their reason and are left out of the suite.
        status = json.load(open(os.path.join(tmp, "a", "status.json")))
        broken = [t["trace"] for t in status["traces"] if t["status"] == "failed"]
        assert all("no usable fix" in t["reason"] for t in status["traces"] if t["status"] == "failed"), status
        assert r.returncode == (1 if broken else 0)
        walks = [w for w in walks if w not in broken]

        # The suite is a plan beside its walks: every walk, some with options of their own.
        suite = os.path.join(tmp, "suite")
        os.makedirs(suite)
        plan_walks = []
        for k, w in enumerate(walks):
            local = os.path.join(suite, f"{k:02d}-{os.path.basename(w)}")
            with open(w, "rb") as f, open(local, "wb") as g:
                g.write(f.read())
            entry = {"trace": os.path.basename(local)}
            if k % 3 == 1:
                entry["options"] = ["--rate", "2"]
            plan_walks.append(entry)
        plan = os.path.join(suite, "plan.json")
        json.dump({"walks": plan_walks}, open(plan, "w"), indent=1)
        walks = [os.path.join(suite, e["trace"]) for e in plan_walks]
        r = run([stroll, "batch", "--plan", plan, "--out", os.path.join(tmp, "recorded"), "--places", places, "--record-dir", goldens])
        assert r.returncode == 0, r.stdout[-2000:]

        def verify(place_file, name):
            report = os.path.join(tmp, name + ".xml")
            r = run([stroll, "batch", "--plan", plan, "--out", os.path.join(tmp, name), "--places", place_file, "--verify-dir", goldens, "--junit", report])
            xml = JUnitXml.fromfile(report)
            cases = [c for suite in xml for c in suite]
            return r, cases

        r, cases = verify(places, "same")
        assert r.returncode == 0, r.stdout
        assert len(cases) == len(walks) and all(c.is_passed for c in cases), [(c.name, c.result) for c in cases]

        moved = json.load(open(places))
        moved[0]["latitude"] += 0.0018
        moved_path = os.path.join(tmp, "moved.json")
        json.dump(moved, open(moved_path, "w"))
        expected = set()
        for w, e in zip(walks, plan_walks):
            alone = run([stroll, "replay", w, "--format", "jsonl", "--places", moved_path, *e.get("options", []),
                         "--verify", os.path.join(goldens, os.path.basename(w) + ".json")])
            if alone.returncode == 1:
                expected.add(w)
        assert expected, "moving a theatre changed no walk"
        r, cases = verify(moved_path, "moved")
        assert r.returncode == 1
        failed = {c.name for c in cases if any(isinstance(x, Failure) for x in c.result)}
        assert failed == expected, (failed, expected)
        for c in cases:
            for x in c.result:
                if isinstance(x, Failure):
                    assert x.message.startswith("verify: ") and "golden" not in x.message.split(":")[0], x.message
        assert not any(isinstance(x, (Error, Skipped)) for c in cases for x in c.result)
        print(f"junit: {len(walks)} walks ({len(broken)} broken traces left out); unchanged all pass; moved theatre: {len(failed)} failures, the same walks as their own --verify")

        # A changed walk: that walk alone fails (its last half replaced by its first half reversed).
        changed = next(w for w in walks if w.endswith(".csv"))
        lines = open(changed).read().splitlines()
        header, rows = lines[0], lines[1:]
        keep = rows[: len(rows) // 2]
        with open(changed, "w") as f:
            f.write("\n".join([header, *keep]) + "\n")
        r, cases = verify(places, "changed-walk")
        failed = {c.name for c in cases if any(isinstance(x, Failure) for x in c.result)}
        assert r.returncode == 1 and failed == {changed}, failed
        print(f"junit: a shortened walk ({os.path.basename(changed)}) is the one failure")

        # A walk without a golden: an error, not a failure.
        os.remove(os.path.join(goldens, os.path.basename(walks[0]) + ".json"))
        r, cases = verify(places, "missing")
        errors = [c.name for c in cases if any(isinstance(x, Error) for x in c.result)]
        assert r.returncode == 1 and errors == [walks[0]], errors
        print("junit: a walk without a golden is an error; the rest pass")

        # 200 walks (the suite's walks copied under new names) with --jobs 2 and the same options
        # give, walk for walk, the same events as 200 separate replays.
        many = os.path.join(tmp, "many")
        os.makedirs(many)
        copies = []
        for k in range(200):
            src = walks[k % len(walks)]
            dst = os.path.join(many, f"w{k:03d}-{os.path.basename(src)}")
            with open(src, "rb") as f, open(dst, "wb") as g:
                g.write(f.read())
            copies.append(dst)
        options = ["--places", places, "--noise", "gaussian", "--seed", "11", "--rate", "2", "--follow", "--within", "1500"]
        r = run([stroll, "batch", *copies, "--jobs", "2", "--out", os.path.join(tmp, "many-out"), *options])
        assert r.returncode == 0, r.stdout[-2000:]
        for c in copies:
            alone = run([stroll, "replay", c, "--format", "jsonl", *options])
            stem = os.path.splitext(os.path.basename(c))[0]
            with open(os.path.join(tmp, "many-out", stem + ".jsonl")) as f:
                assert f.read() == alone.stdout, c
        print("batch: 200 walks with --jobs 2 give the same events as 200 separate replays")


if __name__ == "__main__":
    main()
