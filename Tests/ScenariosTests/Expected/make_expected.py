#!/usr/bin/env python3
"""Independent expectations for the TimeTable2012 scenario along the campus
loop: on Monday from 10:00 the remaining lecture theatres are those of the
11:00 and 14:00 events (cth, sherrington, victoria); on every delivered fix
(25 m filter, 1 Hz interpolation, as ../../ProximityTests/Expected/make_expected.py
replays) they are sorted by GeographicLib distance. Writes every order change
with the index of the delivered fix it happened at.

    pip install geographiclib && python3 make_expected.py > expected-timetable.json
"""
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
spec = importlib.util.spec_from_file_location("walks", os.path.join(ROOT, "Tests", "ProximityTests", "Expected", "make_expected.py"))
walks = importlib.util.module_from_spec(spec)
# The proximity script prints its table when run; load only its functions.
source = open(spec.origin).read().split("\ngroups = places()")[0]
exec(compile(source, spec.origin, "exec"), walks.__dict__)

theatres = {p["id"]: p for p in json.load(open(os.path.join(ROOT, "Fixtures", "lecture-theatres.json")))}
group = [(i, theatres[i]["name"], theatres[i]["latitude"], theatres[i]["longitude"]) for i in ("cth", "sherrington", "victoria")]

delivered, last = [], None
for lat, lon, t in walks.timeline(walks.fixes(os.path.join(ROOT, "traces", "campus-loop.gpx"))):
    if last is not None and walks.G.Inverse(last[0], last[1], lat, lon)["s12"] < 25:
        continue
    delivered.append((lat, lon, t))
    last = (lat, lon)
changes, prev = [], None
for k, (lat, lon, t) in enumerate(delivered):
    order, _ = walks.rank(lat, lon, group)
    if order != prev:
        changes.append({"index": k, "order": order})
    prev = order
print(json.dumps({"delivered": len(delivered), "changes": changes}, indent=1))
