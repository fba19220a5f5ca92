#!/usr/bin/env python3
"""Writes wmm-pygeomag.tsv beside this script: the World Magnetic Model's field
at seeded random points and dates as pygeomag (PyPI, an independent Python port
of NOAA's program) computes it, for Tests/GeomagnetismTests.

    python3 -m venv /tmp/wmm && /tmp/wmm/bin/pip install pygeomag==1.1.0
    /tmp/wmm/bin/python Tests/GeomagnetismTests/Reference/make_fixture.py

With --check it writes nothing and fails if the committed file differs from
what pygeomag gives now (`make test-wmm`).

Columns: latitude, longitude (degrees), height (metres above WGS84), decimal
year, model, then pygeomag's declination and inclination (degrees), X, Y, Z
and F (nT), each printed with repr (every digit of the double).
"""
import datetime
import math
import os
import random
import sys

from pygeomag import GeoMag

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {"WMM-2020": GeoMag(coefficients_file="wmm/WMM_2020.COF"), "WMM-2025": GeoMag(coefficients_file="wmm/WMM_2025.COF")}


def model_for(year):
    return "WMM-2025" if year >= 2025.0 else "WMM-2020"


def decimal_year(iso):
    """The decimal year of a UTC time, to the second, as Geomagnetism's DecimalYear counts it."""
    t = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    start = datetime.datetime(t.year, 1, 1, tzinfo=datetime.timezone.utc)
    end = datetime.datetime(t.year + 1, 1, 1, tzinfo=datetime.timezone.utc)
    return t.year + (t - start).total_seconds() / (end - start).total_seconds()


def points():
    rng = random.Random(20250101)
    # The second fix of traces/lime-street-to-campus.gpx, the first with a course (no elevation: height 0).
    yield 53.4072071, -2.9795042, 0.0, decimal_year("2024-05-01T08:40:05Z")
    # Liverpool, where the bundled walks are, at each half year.
    for i in range(21):
        yield 53.4071481, -2.9795275, 30.0, 2020.0 + 0.5 * i
    # The validity edges.
    for year in (2020.0, 2024.999999, 2025.0, 2030.0):
        yield 0.0, 0.0, 0.0, year
    # Everywhere, uniform on the sphere short of the poles, at the surface and up to 850 km.
    for i in range(400):
        lat = max(-89.9, min(89.9, math.degrees(math.asin(rng.uniform(-1, 1)))))
        lon = rng.uniform(-180, 180)
        height = rng.choice([0.0, rng.uniform(-1000, 10_000), rng.uniform(0, 850_000)])
        year = rng.uniform(2020.0, 2030.0)
        yield lat, lon, height, year


def main():
    rows = ["# latitude\tlongitude\theight_m\tdecimal_year\tmodel\tdeclination\tinclination\tx_nT\ty_nT\tz_nT\tf_nT"]
    for lat, lon, height, year in points():
        name = model_for(year)
        r = MODELS[name].calculate(glat=lat, glon=lon, alt=height / 1000, time=year)
        rows.append("\t".join([repr(lat), repr(lon), repr(height), repr(year), name] + [repr(v) for v in (r.d, r.i, r.x, r.y, r.z, r.f)]))
    text = "\n".join(rows) + "\n"
    target = os.path.join(HERE, "wmm-pygeomag.tsv")
    if "--check" in sys.argv[1:]:
        with open(target) as f:
            committed = f.read()
        if committed != text:
            print(f"FAIL: {target} differs from pygeomag's field now", file=sys.stderr)
            sys.exit(1)
        print(f"ok: {target}, {len(rows) - 1} points, is pygeomag's field")
        return
    with open(target, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
