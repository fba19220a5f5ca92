#!/usr/bin/env python3
"""Writes expected.json: what independent tools read in each real trace.

GPX structure, points and times come from gpxpy; CSV rows from Python's csv
module with the rules Stroll documents (a newest-first file is reversed, a
backward time rejects its row); lengths are WGS84 geodesics from GeographicLib.
bad.gpx, which gpxpy refuses, is described by hand below from reading it.

    pip install gpxpy geographiclib && python3 make_expected.py > expected.json
"""
import csv
import json
import os
from datetime import datetime, timezone

import gpxpy
from geographiclib.geodesic import Geodesic

HERE = os.path.dirname(os.path.abspath(__file__))
G = Geodesic.WGS84


def iso(t):
    return None if t is None else t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def length(segments):
    return sum(G.Inverse(a[0], a[1], b[0], b[1])["s12"] for seg in segments for a, b in zip(seg, seg[1:]))


def gpx(path):
    g = gpxpy.parse(open(path, encoding="utf-8-sig"))
    segs = [s for t in g.tracks for s in t.segments]
    times = [p.time.replace(tzinfo=p.time.tzinfo or timezone.utc) for s in segs for p in s.points if p.time]
    return {
        "tracks": len(g.tracks), "segments": len(segs), "pointsPerSegment": [len(s.points) for s in segs],
        "routes": len(g.routes), "routePoints": sum(len(r.points) for r in g.routes), "waypoints": len(g.waypoints),
        "timedPoints": len(times),
        "firstTime": iso(min(times)) if times else None, "lastTime": iso(max(times)) if times else None,
        "length_m": length([[(p.latitude, p.longitude) for p in s.points] for s in segs]),
        "rejectedLines": [],
    }


def parse_time(text):
    text = text.strip()
    try:
        v = float(text)
        for limit, scale in ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3)):
            if abs(v) >= limit:
                return datetime.fromtimestamp(v / scale, timezone.utc)
        return datetime.fromtimestamp(v, timezone.utc)
    except ValueError:
        text = text.replace("Z", "+00:00")
        if "." in text:  # Python takes at most 6 fractional digits
            head, frac = text.split(".", 1)
            digits = "".join(c for c in frac if c.isdigit())
            zone = frac[len(digits):]
            text = head + "." + digits[:6] + zone
        t = datetime.fromisoformat(text)
        return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def csv_trace(path, lat_col, lon_col, time_col):
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f, delimiter=";"))
    pts = [(float(r[lat_col]), float(r[lon_col]), parse_time(r[time_col]), n + 2) for n, r in enumerate(rows)]
    times = [p[2] for p in pts]
    rejected = []
    if all(b <= a for a, b in zip(times, times[1:])) and times[0] != times[-1]:
        pts.reverse()
    else:
        kept, last = [], None
        for p in pts:
            if last is not None and p[2] < last:
                rejected.append(p[3])
                continue
            last = p[2]
            kept.append(p)
        pts = kept
    ts = [p[2] for p in pts]
    return {
        "tracks": 1, "segments": 1, "pointsPerSegment": [len(pts)], "routes": 0, "routePoints": 0, "waypoints": 0,
        "timedPoints": len(ts), "firstTime": iso(min(ts)), "lastTime": iso(max(ts)),
        "length_m": length([[(p[0], p[1]) for p in pts]]),
        "rejectedLines": rejected,
    }


out = {}
for sub in ("gpxpy", "togeojson"):
    for name in sorted(os.listdir(os.path.join(HERE, sub))):
        if name.endswith(".gpx") and name != "bad.gpx":
            out[f"{sub}/{name}"] = gpx(os.path.join(HERE, sub, name))
# bad.gpx, read by eye: one track with one segment whose two trkpt have lat="undefined"
# (lines 5 and 8), two wpt with lat "undefined" and "y" (lines 13, 14), one route whose
# only rtept has lat="undefined" and <ele>bad data</ele> (line 18). Nothing is usable.
out["togeojson/bad.gpx"] = {
    "tracks": 1, "segments": 1, "pointsPerSegment": [0], "routes": 1, "routePoints": 0, "waypoints": 0,
    "timedPoints": 0, "firstTime": None, "lastTime": None, "length_m": 0.0, "rejectedLines": [5, 8, 13, 14, 18],
}
out["trackintel/google_trajectory.csv"] = csv_trace(os.path.join(HERE, "trackintel/google_trajectory.csv"), "latitude", "longitude", "tracked_at")
out["trackintel/posmo_trajectory.csv"] = csv_trace(os.path.join(HERE, "trackintel/posmo_trajectory.csv"), "latitude", "longitude", "tracked_at")
print(json.dumps(out, indent=1, sort_keys=True))
