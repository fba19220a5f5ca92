#!/usr/bin/env python3
"""The integration checks shown to fail on wrong results: four of the cheap
checks run against perturbed_stroll.py, a `stroll` that is wrong in one way
a user would notice, and each must fail, naming what is wrong. The self-test
passes only if every one of them fails so.

    check                     what is wrong (STROLL_PERTURB)
    serve/check_serve.py      TPV reports 1.1 m north of the fix (tpv-shift)
    batch/check_junit.py      a diverged walk reported as passing (junit-pass)
    terminal/check_realtime_pty.py   ranking headers 60 s ahead (header-ahead)
    clusters/check_clusters.py       two clusters' members swapped (cluster-swap)

The four run at once (they mostly wait: on the paced replays, on each other's
processes), each with its own output, shown when it does not fail as it must.

usage: run_selftest.py STROLL PYTHON [--under-test PROGRAM]
  STROLL   the real binary; PYTHON the checks' Python (junitparser, pysupercluster)
  --under-test PROGRAM   what the checks run instead of the wrapper: the real
           binary there shows that the self-test itself fails when nothing is wrong.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKS = os.path.dirname(HERE)
# Seconds a check may run: a guard against a hang (each is done in well under a minute).
HANG_GUARD = 300


def line_of(text, match):
    """The whole line a match is in."""
    end = text.find("\n", match.end())
    return text[text.rfind("\n", 0, match.start()) + 1:end if end >= 0 else len(text)].strip()


def main():
    stroll, python = os.path.abspath(sys.argv[1]), sys.argv[2]
    under_test = os.path.join(HERE, "perturbed_stroll.py")
    if "--under-test" in sys.argv:
        under_test = os.path.abspath(sys.argv[sys.argv.index("--under-test") + 1])
    # (name, perturbation, command, what the failure must name: patterns each found in the check's output)
    cases = [
        ("serve", "tpv-shift", ["/usr/bin/python3", os.path.join(CHECKS, "serve", "check_serve.py"), under_test, "--soak"],
         [r"FAIL gpspipe -w against stroll serve --gpsd: positions", r"FAIL python3-gps session: positions",
          r"FAIL soak: the reports are the \d+ fixes"]),
        ("junit", "junit-pass", [python, os.path.join(CHECKS, "batch", "check_junit.py"), under_test],
         [r"assert failed == expected"]),
        ("terminal", "header-ahead", [sys.executable, os.path.join(CHECKS, "terminal", "check_realtime_pty.py"), under_test],
         [r"AssertionError: a header at \d+ s is ahead of the walk's"]),
        ("clusters", "cluster-swap", [python, os.path.join(CHECKS, "clusters", "check_clusters.py"), under_test],
         [r"AssertionError: .*(members|is not the mean of its members)$"]),
    ]
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="stroll-selftest-") as tmp:
        running = []
        for name, kind, command, marks in cases:
            log = open(os.path.join(tmp, name + ".log"), "w+")
            env = dict(os.environ, STROLL_REAL=stroll, STROLL_PERTURB=kind)
            running.append((name, kind, marks, log, time.monotonic(), subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)))
        # Each check's own time: polled, so that one that ends early is seen ending.
        ended = {}
        while len(ended) < len(running):
            for name, _, _, _, started, process in running:
                if name not in ended and process.poll() is not None:
                    ended[name] = time.monotonic() - started
                elif name not in ended and time.monotonic() - started > HANG_GUARD:
                    os.killpg(process.pid, signal.SIGKILL)  # the check and what it started
                    process.wait()
                    ended[name] = HANG_GUARD
                    print(f"{name}: still running after {HANG_GUARD} s (killed)")
            time.sleep(0.1)
        wrong = 0
        for name, kind, marks, log, _, process in running:
            code = process.returncode
            log.seek(0)
            output = log.read()
            found = [re.search(m, output, re.M) for m in marks]
            missing = [m for m, f in zip(marks, found) if not f]
            if code != 0 and not missing:
                print(f"{name} with {kind}: failed, as it must ({ended[name]:.0f} s): "
                      + "; ".join(line_of(output, f)[:200] for f in found))
            else:
                wrong += 1
                why = "passed" if code == 0 else f"failed (exit {code}) without naming {missing}"
                print(f"FAIL {name} with {kind}: the check {why}; its output:\n" + output[-4000:])
    took = time.monotonic() - began
    if wrong:
        print(f"selftest: {wrong} of {len(cases)} checks did not fail on a wrong stroll ({took:.0f} s)")
        sys.exit(1)
    print(f"selftest: all {len(cases)} checks fail on a wrong stroll ({took:.0f} s)")


if __name__ == "__main__":
    main()
