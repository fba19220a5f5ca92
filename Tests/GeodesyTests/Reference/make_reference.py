#!/usr/bin/env python3
"""Generates geodesic-reference.tsv: inverse-problem cases on WGS84 solved by
GeographicLib (pip install geographiclib), an implementation independent of
Stroll's. Columns: category lat1 lon1 lat2 lon2 azi1 azi2 s12 (degrees, metres).

    python3 make_reference.py > geodesic-reference.tsv
"""
import math
import random

from geographiclib.geodesic import Geodesic

G = Geodesic.WGS84
rng = random.Random(327)
rows = []


def add(cat, lat1, lon1, lat2, lon2):
    r = G.Inverse(lat1, lon1, lat2, lon2)
    rows.append((cat, lat1, lon1, lat2, lon2, r["azi1"], r["azi2"], r["s12"]))


def rand_lat():
    return math.degrees(math.asin(rng.uniform(-1, 1)))


# City scale: Liverpool, 0.1 m to 20 km, log-uniform distances.
for _ in range(1200):
    lat1 = 53.4055 + rng.uniform(-0.05, 0.05)
    lon1 = -2.966 + rng.uniform(-0.08, 0.08)
    s = 10 ** rng.uniform(-1, math.log10(20000))
    d = G.Direct(lat1, lon1, rng.uniform(-180, 180), s)
    add("city", lat1, lon1, round(d["lat2"], 9), round(d["lon2"], 9))
# Worldwide.
for _ in range(800):
    add("world", rand_lat(), rng.uniform(-180, 180), rand_lat(), rng.uniform(-180, 180))
# Near-antipodal.
for _ in range(300):
    lat1 = rng.uniform(-80, 80)
    lon1 = rng.uniform(-180, 180)
    lon2 = lon1 + 180 - rng.uniform(0, 1.5)
    lon2 = lon2 - 360 if lon2 > 180 else lon2
    add("antipodal", lat1, lon1, -lat1 + rng.uniform(-1, 1), lon2)
# Equatorial (both on the equator, including the nearly antipodal stretch).
for _ in range(200):
    lon1 = rng.uniform(-180, 180)
    add("equatorial", 0.0, lon1, 0.0, rng.uniform(-180, 180))
# Meridional (same meridian, or opposite meridians).
for _ in range(200):
    lon = rng.uniform(-180, 180)
    lon2 = lon if rng.random() < 0.5 else (lon + 180 if lon < 0 else lon - 180)
    add("meridional", rand_lat(), lon, rand_lat(), lon2)
# Polar: one point at or near a pole.
for _ in range(200):
    pole = rng.choice([90.0, -90.0, 89.9999, -89.99999])
    add("polar", pole, rng.uniform(-180, 180), rand_lat(), rng.uniform(-180, 180))
# Coincident points.
for _ in range(100):
    lat, lon = rand_lat(), rng.uniform(-180, 180)
    add("coincident", lat, lon, lat, lon)

print("# category\tlat1\tlon1\tlat2\tlon2\tazi1\tazi2\ts12  (GeographicLib %s, WGS84)" % __import__("geographiclib").__version__)
for r in rows:
    print("\t".join([r[0]] + [repr(float(x)) for x in r[1:]]))
