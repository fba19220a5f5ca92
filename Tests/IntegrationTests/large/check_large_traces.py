#!/usr/bin/env python3
"""Traces larger than memory, read in bounded memory by the `stroll` a user runs.

Writes a GPX file of 8 million track points (over 1 GB), the same file
gzip-compressed, and a CSV file of 10 million rows, and reads each with
`stroll trace info --json`: every point must be counted, none rejected, and
the process's peak resident memory (its own rusage, from wait4) must stay
under BOUND_MB, far below what holding the points would take (8 million
fixes of 5 doubles are 320 MB before any overhead).

usage: check_large_traces.py STROLL [GPX_POINTS] [CSV_ROWS]
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

STROLL = sys.argv[1]
GPX_POINTS = int(sys.argv[2]) if len(sys.argv) > 2 else 8_000_000
CSV_ROWS = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000_000
BOUND_MB = 128

failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def write_lines(path, header, footer, count, line):
    with open(path, "w", buffering=1 << 22) as f:
        f.write(header)
        step = 100_000
        for start in range(0, count, step):
            f.write("".join(line(i) for i in range(start, min(count, start + step))))
        f.write(footer)


def trace_info(path):
    """Runs `stroll trace info --json PATH`; returns (report, peak MiB, seconds)."""
    began = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen([STROLL, "trace", "info", path, "--json"], stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        took = time.monotonic() - began
        out.seek(0)
        err.seek(0)
        text, problems = out.read().decode(), err.read().decode()
    if child.returncode != 0:
        failures.append(f"trace info {path}: exit {child.returncode}: {problems.strip()}")
        return None, 0, took
    # ru_maxrss is in KiB on Linux.
    return json.loads(text), usage.ru_maxrss / 1024, took


def check(path, label, points, fmt):
    report, peak, took = trace_info(path)
    if report is None:
        return
    size = os.path.getsize(path)
    print(f"{label}: {size} bytes, {report['points']} points in {took:.1f} s, peak resident {peak:.0f} MiB (bound {BOUND_MB})")
    expect(report["points"] == points, f"{label}: {report['points']} points, expected {points}")
    expect(report["format"] == fmt, f"{label}: format {report['format']}, expected {fmt}")
    expect(report["rejected"] == [], f"{label}: rejected {report['rejected'][:3]}")
    expect(peak < BOUND_MB, f"{label}: peak resident {peak:.0f} MiB, bound {BOUND_MB} MiB")


def main():
    with tempfile.TemporaryDirectory(prefix="stroll-large-") as work:
        gpx = os.path.join(work, "large.gpx")
        write_lines(gpx, '<?xml version="1.0"?>\n<gpx version="1.1"><trk><trkseg>\n', "</trkseg></trk></gpx>\n", GPX_POINTS,
                    lambda i: f'<trkpt lat="53.{1_000_000 + i % 1_000_000}" lon="-2.{9_000_000 + i % 999_999}"><ele>12.5</ele>'
                              f'<time>2024-05-01T09:00:00Z</time><hdop>1.2</hdop><extensions><speed>1.4</speed></extensions></trkpt>\n')
        if GPX_POINTS == 8_000_000:
            expect(os.path.getsize(gpx) > 1_000_000_000, "the GPX file is over 1 GB")
        # The same file gzip-compressed (inflated chunk by chunk, never whole), made while stroll reads
        # the plain one; then the CSV file written while stroll reads the .gz (each is one core's work).
        gzip = subprocess.Popen(["gzip", "-1", "-k", gpx])
        check(gpx, "GPX", GPX_POINTS, "gpx")
        expect(gzip.wait() == 0, "gzip -1 of the GPX file")
        os.remove(gpx)
        csv = os.path.join(work, "large.csv")
        writer = threading.Thread(target=write_lines, args=(csv, "time,lat,lon,accuracy\n", "", CSV_ROWS,
                                  lambda i: f"{1_714_554_000 + i},53.{1_000_000 + i % 1_000_000},-2.{9_000_000 + i % 999_999},5\n"))
        writer.start()
        check(gpx + ".gz", "GPX.gz", GPX_POINTS, "gpx")
        os.remove(gpx + ".gz")
        writer.join()
        check(csv, "CSV", CSV_ROWS, "csv")
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok: large traces read in bounded memory")


if __name__ == "__main__":
    main()
