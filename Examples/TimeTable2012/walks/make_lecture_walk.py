#!/usr/bin/env python3
"""Makes comp327-lecture.gpx: a student walks from the University's Brownlow
Hill CityBike station to the Ashton Building, stays there through Monday's
09:00 COMP327 lecture (the walk's clock is UTC, as the timetable's times are
read in TimeTable2012's tests), and walks on to the Central Teaching Hub.

Positions are from ../../../Fixtures (the 2014 CityBike stations and
lecture-theatres.json); the legs are WGS84 geodesics (GeographicLib) walked
at 1.35 m/s with a fix every 5 s (accuracy 5 m), as traces/make_walks.py
makes the bundled walks; during the stay the phone reports a fix every 5 s
a few metres about the building's position, as a phone indoors does.
Deterministic: running it again gives the same file.

    pip install geographiclib && python3 make_lecture_walk.py
"""
import json
import math
import os
from datetime import datetime, timedelta, timezone

from geographiclib.geodesic import Geodesic

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "..", "Fixtures")
G = Geodesic.WGS84
STATIONS = {s["name"]: (s["latitude"], s["longitude"]) for s in json.load(open(os.path.join(FIXTURES, "liverpool", "citybike-stations-2014.json")))}
THEATRES = {p["id"]: (p["latitude"], p["longitude"]) for p in json.load(open(os.path.join(FIXTURES, "lecture-theatres.json")))}
PACE, INTERVAL = 1.35, 5.0


def leg(a, b, t):
    """Fixes from a (exclusive) to b along the geodesic, and the time at b."""
    line = G.InverseLine(a[0], a[1], b[0], b[1])
    fixes, s = [], INTERVAL * PACE
    while s < line.s13:
        p = line.Position(s)
        t += timedelta(seconds=INTERVAL)
        fixes.append((p["lat2"], p["lon2"], t))
        s += INTERVAL * PACE
    t += timedelta(seconds=INTERVAL)
    fixes.append((b[0], b[1], t))
    return fixes, t


start = STATIONS["University of Liverpool - Brownlow Hill"]
ashton, cth = THEATRES["ashton"], THEATRES["cth"]
t = datetime(2024, 5, 6, 8, 50, tzinfo=timezone.utc)  # a Monday: the timetable's day 0
fixes = [(start[0], start[1], t)]
walked, t = leg(start, ashton, t)
fixes += walked
# The lecture: 55 minutes in the building, fixes within 4 m of its position
# (a fixed circle of offsets, not random, so the file is the same each time).
for k in range(int(55 * 60 / INTERVAL)):
    t += timedelta(seconds=INTERVAL)
    p = G.Direct(ashton[0], ashton[1], (k * 47) % 360, 2 + (k % 3))
    fixes.append((p["lat2"], p["lon2"], t))
walked, t = leg(ashton, cth, t)
fixes += walked

with open(os.path.join(HERE, "comp327-lecture.gpx"), "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    f.write('<gpx version="1.1" creator="Stroll Examples/TimeTable2012/walks/make_lecture_walk.py" xmlns="http://www.topografix.com/GPX/1/1">\n')
    f.write("  <trk>\n    <name>To the COMP327 lecture at the Ashton Building, then to the Central Teaching Hub</name>\n    <trkseg>\n")
    for lat, lon, tt in fixes:
        f.write(f'      <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>{tt.strftime("%Y-%m-%dT%H:%M:%SZ")}</time><extensions><hAcc>5.0</hAcc></extensions></trkpt>\n')
    f.write("    </trkseg>\n  </trk>\n</gpx>\n")
print(len(fixes), "fixes", fixes[0][2].isoformat(), "to", fixes[-1][2].isoformat())
