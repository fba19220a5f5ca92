#!/usr/bin/env python3
"""Independent expectations for replaying the bundled walks against the
CoffeeShop13 Liverpool coffee houses and the lecture theatres.

Re-implements, with GeographicLib, what CLI.md and DESIGN.md specify: recorded
fixes at their times, fixes interpolated at 1 Hz along the geodesic between
them, the 25 m distance filter measured from the last delivered fix, and on
each delivered fix the order by distance rounded to the millimetre, then name
(Unicode scalar order), then id. Writes expected-rankings.json.

    pip install geographiclib && python3 make_expected.py > expected-rankings.json
"""
import bisect
import json
import os
import plistlib
import xml.etree.ElementTree as ET
from datetime import datetime

from geographiclib.geodesic import Geodesic

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
G = Geodesic.WGS84
NS = {"g": "http://www.topografix.com/GPX/1/1"}


def places():
    groups = plistlib.load(open(os.path.join(ROOT, "Fixtures", "CityCycleRideLocations.plist"), "rb"))
    coffee = [(f"liverpool-{i}", p["name"], p["latitude"], p["longitude"]) for i, p in enumerate(groups[0])]
    theatres = [(p["id"], p["name"], p["latitude"], p["longitude"]) for p in json.load(open(os.path.join(ROOT, "Fixtures", "lecture-theatres.json")))]
    return {"liverpool": coffee, "lecture-theatres": theatres}


def fixes(path):
    out = []
    for pt in ET.parse(path).getroot().iterfind(".//g:trkpt", NS):
        t = datetime.strptime(pt.find("g:time", NS).text, "%Y-%m-%dT%H:%M:%SZ").timestamp()
        out.append((float(pt.get("lat")), float(pt.get("lon")), t))
    return out


def timeline(points):
    """Recorded fixes plus 1 Hz interpolation along each leg."""
    for (la, loa, ta), (lb, lob, tb) in zip(points, points[1:]):
        yield la, loa, ta
        if tb - ta > 1:
            line = G.InverseLine(la, loa, lb, lob)
            k = 1
            while ta + k < tb - 1e-9:
                p = line.Position(line.s13 * k / (tb - ta))
                yield p["lat2"], p["lon2"], ta + k
                k += 1
    yield points[-1]


def scalar_key(s):
    return [ord(c) for c in s]


def rank(lat, lon, group):
    rows = []
    for pid, name, plat, plon in group:
        d = G.Inverse(lat, lon, plat, plon)["s12"]
        rows.append((round(d * 1000), scalar_key(name), scalar_key(pid), pid, d))
    rows.sort()
    return [r[3] for r in rows], [r[4] for r in rows]


def minimal_moves(prev, new):
    pos = {x: i for i, x in enumerate(prev)}
    tails = []
    for x in new:
        i = bisect.bisect_left(tails, pos[x])
        tails[i:i + 1] = [pos[x]]
    return len(new) - len(tails)


def replay(path, groups):
    delivered = []
    last = None
    for lat, lon, t in timeline(fixes(path)):
        if last is not None and G.Inverse(last[0], last[1], lat, lon)["s12"] < 25:
            continue
        delivered.append((lat, lon, t))
        last = (lat, lon)
    t0 = delivered[0][2]
    result = {"delivered": len(delivered), "groups": {}}
    for name, group in groups.items():
        prev, changes, nearest_changes, samples, move_counts = None, 0, [], [], []
        for k, (lat, lon, t) in enumerate(delivered):
            order, dists = rank(lat, lon, group)
            if prev is None:
                nearest_changes.append({"t": t - t0, "nearest": order[0]})
            else:
                if order != prev:
                    changes += 1
                if order[0] != prev[0]:
                    nearest_changes.append({"t": t - t0, "nearest": order[0]})
                move_counts.append(minimal_moves(prev, order))
            if k % 10 == 0:
                samples.append({"index": k, "t": t - t0, "order": order, "distances": dists})
            prev = order
        result["groups"][name] = {"orderChanges": changes, "nearestChanges": nearest_changes,
                                  "samples": samples, "moveCounts": move_counts}
    return result


groups = places()
out = {}
for name in ("lime-street-to-campus", "pier-head-to-guild", "campus-loop", "bold-street-long-stop"):
    out[name] = replay(os.path.join(ROOT, "traces", name + ".gpx"), groups)
print(json.dumps(out, indent=1))
