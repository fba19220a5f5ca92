#!/usr/bin/env python3
"""`stroll trace info` on the same walk in every format it reads, beside
GPSBabel converting each file to GPX, in one run on one machine.

The walk: 100 000 fixes a second apart with elevation, accuracy and HDOP
(the walk of `make bench`'s `Read walk.FORMAT` benchmarks), written here as
GPX and by `stroll trace convert` as every other format it writes; the
`.plt` in GeoLife's export layout, the `.gpx.gz` by gzip at level 6.

Stroll: `stroll trace info --json FILE`, the whole process (start, read,
statistics), median wall time of 5 runs and the largest peak resident set
of them (getrusage of the child). GPSBabel 1.8: `gpsbabel -i FORMAT -f FILE
-o gpx -F /dev/null`, median of 3 (for `.gz`, `gzip -dc FILE | gpsbabel -f -`:
it reads no gzip); it reads neither KMZ nor GeoLife `.plt`. Prints a
markdown table.

usage: formats_peers.py STROLL [POINTS]
"""
import gzip
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

STROLL = os.path.abspath(sys.argv[1])
POINTS = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
# (file, GPSBabel's input format, or None where it reads no such file)
FORMATS = [("walk.gpx", "gpx"), ("walk.gpx.gz", "gpx"), ("walk.csv", "unicsv"), ("walk.kml", "kml"),
           ("walk.kmz", None), ("walk.tcx", "gtrnctr"), ("walk.nmea", "nmea"), ("walk.plt", None),
           ("walk.geojson", "geojson")]
START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def fixes():
    for i in range(POINTS):
        yield (53.4 + 0.01 * math.sin(i / 5000), -2.97 + 0.01 * math.cos(i / 7000), 20 + (i % 50) * 0.1,
               START + timedelta(seconds=i))


def write_walk(folder):
    gpx = os.path.join(folder, "walk.gpx")
    with open(gpx, "w") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="formats_peers" '
                  'xmlns="http://www.topografix.com/GPX/1/1"><trk><name>generated</name><trkseg>\n')
        for lat, lon, ele, t in fixes():
            out.write(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{ele:.1f}</ele>'
                      f'<time>{t:%Y-%m-%dT%H:%M:%SZ}</time><hdop>1</hdop></trkpt>\n')
        out.write("</trkseg></trk></gpx>\n")
    with open(gpx, "rb") as src, gzip.open(os.path.join(folder, "walk.gpx.gz"), "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst)
    for name, _ in FORMATS:
        if name.endswith((".gpx", ".gz", ".plt")):
            continue
        subprocess.run([STROLL, "trace", "convert", gpx, os.path.join(folder, name)], check=True, capture_output=True)
    with open(os.path.join(folder, "walk.plt"), "w") as out:
        out.write("Geolife trajectory\nWGS 84\nAltitude is in Feet\nReserved 3\n0,2,255,My Track,0,0,2,8421376\n0\n")
        for lat, lon, ele, t in fixes():
            days = t.timestamp() / 86400 + 25569
            out.write(f"{lat:.7f},{lon:.7f},0,{ele / 0.3048:.0f},{days:.10f},{t:%Y-%m-%d},{t:%H:%M:%S}\n")


def timed(args, stdin=None):
    """(seconds, peak resident bytes, stdout) of one process."""
    started = time.monotonic()
    child = subprocess.Popen(args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    took = time.monotonic() - started
    assert os.waitstatus_to_exitcode(status) == 0, args
    return took, usage.ru_maxrss * 1024, out


def stroll(path):
    runs = [timed([STROLL, "trace", "info", "--json", path]) for _ in range(5)]
    points = json.loads(runs[0][2])["points"]
    assert points == POINTS, (path, points)
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)


def gpsbabel(path, fmt):
    if fmt is None or not shutil.which("gpsbabel"):
        return None
    times = []
    for _ in range(3):
        if path.endswith(".gz"):
            started = time.monotonic()
            subprocess.run(f"gzip -dc '{path}' | gpsbabel -i {fmt} -f - -o gpx -F /dev/null", shell=True, check=True,
                           capture_output=True)
            times.append(time.monotonic() - started)
        else:
            times.append(timed(["gpsbabel", "-i", fmt, "-f", path, "-o", "gpx", "-F", "/dev/null"])[0])
    return statistics.median(times)


def main():
    with tempfile.TemporaryDirectory(prefix="stroll-formats-") as folder:
        write_walk(folder)
        print(f"{POINTS} points; `stroll trace info --json` median of 5 runs, GPSBabel median of 3\n")
        print("| file | size | `stroll trace info` | MB/s | points/s | peak RSS | GPSBabel to GPX | GPSBabel / Stroll |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, fmt in FORMATS:
            path = os.path.join(folder, name)
            size = os.path.getsize(path)
            took, peak = stroll(path)
            babel = gpsbabel(path, fmt)
            inflated = " (inflated)" if name.endswith((".gz", ".kmz")) else ""
            rate = (os.path.getsize(os.path.join(folder, "walk.gpx" if name.endswith(".gz") else "walk.kml"))
                    if inflated else size) / took / 1e6
            print(f"| {name} | {size / 1e6:.1f} MB | {took * 1000:.0f} ms | {rate:.0f}{inflated} | "
                  f"{POINTS / took:,.0f} | {peak / 2**20:.0f} MiB | "
                  + (f"{babel * 1000:.0f} ms | {babel / took:.1f}x |" if babel else "– | – |"))


if __name__ == "__main__":
    main()
