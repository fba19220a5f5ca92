#!/usr/bin/env python3
"""Makes the bundled Liverpool walks from real street positions.

Waypoints are Liverpool CityBike docking stations (a 2014 capture of the
scheme's public map; ../Fixtures/liverpool/citybike-stations-2014.json) and the
University of Liverpool buildings of ../Fixtures/lecture-theatres.json. Each
walk goes from waypoint to waypoint along the WGS84 geodesic (GeographicLib),
at a steady walking pace, with a fix every 5 s as a phone app records them
(horizontal accuracy 5 m). Deterministic: running it again gives the same files.

    pip install geographiclib && python3 make_walks.py
"""
import json
import os
from datetime import datetime, timedelta, timezone

from geographiclib.geodesic import Geodesic

HERE = os.path.dirname(os.path.abspath(__file__))
G = Geodesic.WGS84
STATIONS = {s["name"]: (s["latitude"], s["longitude"]) for s in json.load(open(os.path.join(HERE, "..", "Fixtures", "liverpool", "citybike-stations-2014.json")))}
THEATRES = {p["name"]: (p["latitude"], p["longitude"]) for p in json.load(open(os.path.join(HERE, "..", "Fixtures", "lecture-theatres.json")))}
PACE = 1.35      # metres per second
INTERVAL = 5.0   # seconds between recorded fixes


def where(name):
    return STATIONS.get(name) or THEATRES[name]


def walk(waypoints, start, stops=None, glitch=None):
    """Fixes along the waypoints; stops: {waypoint index: seconds}; glitch: (fix index, metres east)."""
    stops = stops or {}
    fixes, t = [], start
    pos = where(waypoints[0])
    fixes.append((pos[0], pos[1], t, 5.0))
    carry = 0.0  # distance already walked towards the next fix
    for i, (a, b) in enumerate(zip(waypoints, waypoints[1:])):
        pa, pb = where(a), where(b)
        line = G.InverseLine(pa[0], pa[1], pb[0], pb[1])
        s = INTERVAL * PACE - carry
        while s < line.s13:
            p = line.Position(s)
            t += timedelta(seconds=INTERVAL)
            fixes.append((p["lat2"], p["lon2"], t, 5.0))
            s += INTERVAL * PACE
        carry = line.s13 - (s - INTERVAL * PACE)
        if i + 1 in stops:
            # Standing at the waypoint: a fix every 5 s for the stop.
            for _ in range(int(stops[i + 1] / INTERVAL)):
                t += timedelta(seconds=INTERVAL)
                fixes.append((pb[0], pb[1], t, 5.0))
            carry = 0.0
    if glitch:
        k, metres = glitch
        lat, lon, tt, _ = fixes[k]
        g = G.Direct(lat, lon, 90, metres)
        fixes[k] = (g["lat2"], g["lon2"], tt, 65.0)
    return fixes


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_gpx(name, title, how, fixes):
    with open(os.path.join(HERE, name + ".gpx"), "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write('<gpx version="1.1" creator="Stroll traces/make_walks.py" xmlns="http://www.topografix.com/GPX/1/1">\n')
        f.write(f"  <metadata>\n    <name>{title}</name>\n    <desc>{how}</desc>\n  </metadata>\n")
        f.write(f"  <trk>\n    <name>{title}</name>\n    <trkseg>\n")
        for lat, lon, t, acc in fixes:
            f.write(f'      <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>{iso(t)}</time><extensions><hAcc>{acc}</hAcc></extensions></trkpt>\n')
        f.write("    </trkseg>\n  </trk>\n</gpx>\n")


def write_csv(name, fixes):
    with open(os.path.join(HERE, name + ".csv"), "w") as f:
        f.write("time,latitude,longitude,accuracy\n")
        for lat, lon, t, acc in fixes:
            f.write(f"{iso(t)},{lat:.7f},{lon:.7f},{acc}\n")


HOW = ("Made by traces/make_walks.py: geodesic legs between CityBike station positions (2014) "
       "and University of Liverpool buildings, walked at 1.35 m/s, a fix every 5 s, accuracy 5 m.")

walks = {
    "lime-street-to-campus": (
        "Lime Street station to the campus",
        ["Lime Street Railway Station", "Lime Street North", "Copperas Hill", "Brownlow Hill - West",
         "University of Liverpool - Brownlow Hill", "Ashton Building"],
        datetime(2024, 5, 1, 8, 40, tzinfo=timezone.utc), {}, None),
    "pier-head-to-guild": (
        "Pier Head up Bold Street to the Guild of Students",
        ["Pier Head Ferry Terminal", "Pier Head - Port of Liverpool Building", "Derby Square - James Street",
         "Derby Square - Lord Street", "Hanover Street", "Ropewalks Square", "Renshaw Street", "Leece Street",
         "Leece St - St Lukes Church", "Mount Pleasant – Liverpool Science Park", "Everyman Theatre",
         "University of Liverpool - Guild of Students"],
        datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc), {}, None),
    "campus-loop": (
        "A loop of the campus past the lecture theatres",
        ["University of Liverpool - Guild of Students", "Central Teaching Hub", "Sydney Jones Library",
         "University of Liverpool - Abercromby Square", "Management School", "Eleanor Rathbone Building", "Cedar House",
         "University of Liverpool - Guild of Students", "Victoria Building", "Ashton Building", "Harrison Hughes Building",
         "University of Liverpool - Brownlow Hill", "University of Liverpool - Guild of Students"],
        datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc), {}, None),
    "bold-street-long-stop": (
        "Ranelagh Street to the Philharmonic, with a long coffee stop and a GPS glitch",
        ["Ranelagh Street", "Ropewalks Square", "Renshaw Street", "Leece Street", "Philharmonic Hall"],
        datetime(2024, 5, 1, 15, 0, tzinfo=timezone.utc), {2: 600}, None),
}

for name, (title, points, start, stops, glitch) in walks.items():
    fixes = walk(points, start, stops)
    if name == "bold-street-long-stop":
        # One fix far off, as a phone in a street canyon reports: 300 m east, accuracy 65 m, just after the stop.
        k = len(walk(points[:4], start, stops)) + 3
        lat, lon, tt, _ = fixes[k]
        g = G.Direct(lat, lon, 90, 300)
        fixes[k] = (g["lat2"], g["lon2"], tt, 65.0)
        how = HOW + " A 10-minute stop at Renshaw Street (fixes every 5 s on the spot), then one fix 300 m east with accuracy 65 m (a glitch)."
    else:
        how = HOW
    write_gpx(name, title, how, fixes)
    if name in ("lime-street-to-campus", "bold-street-long-stop"):
        write_csv(name, fixes)
    print(name, len(fixes), "fixes", iso(fixes[0][2]), "to", iso(fixes[-1][2]))
