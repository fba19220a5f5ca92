#!/usr/bin/env python3
"""`stroll replay --visits` against trackintel (PyPI), whose sliding
stay-point rule (Li et al. 2008) Stroll's visits follow (docs/Visits.md).

For each walk below, `stroll replay --visits --format jsonl` is run, and the
fixes of its `location` events (the very fixes its detector saw, times to
the microsecond) are given to trackintel's `generate_staypoints(method=
"sliding", include_last=True)` with the same thresholds, trackintel's
haversine replaced by the WGS84 geodesic (pyproj's `Geod.inv`, GeographicLib's
algorithm, as Stroll measures). Then:

1. the same stays: as many trackintel staypoints as Stroll's visits, each
   arrival and departure time equal to the microsecond (a stay still open at
   the end: trackintel's `finished_at` is the last fix, Stroll sent no
   departure);
2. every departure visit comes after an arrival visit of the same stay, the
   arrival at the stay's first fix `--visit-minutes` after its start and the
   departure at the fix that ends it (its `location` line is the one before);
3. centres: where no two fixes of a stay share a position (sensor noise),
   Stroll's centre is trackintel's staypoint geometry within 1 µm; where
   they do (a noiseless stop repeats one position), trackintel averages the
   distinct positions (shapely's `union_all`), so Stroll's centre is
   compared within 1 µm to trackintel's own `angle_centroid_multipoints` on
   the stay's fixes as trackintel assigned them, and the distance to the
   staypoint's geometry is printed. The arrival visit's centre is checked
   the same way on the fixes up to its own;
4. trackintel is run again with its own haversine (a 6371 km sphere): the
   stays on which the two measures disagree (a fix between the sphere's
   radius and the ellipsoid's) are counted and printed, not failed, with the
   largest difference of the two measures at a stay's ending fix.

`--selftest` shows the comparison failing first: one arrival 60 s late and
one visit dropped must each be reported.

usage: check_visits.py STROLL [--selftest]
"""
import json
import os
import subprocess
import sys
import warnings

import geopandas as gpd
import pandas as pd
from pyproj import Geod
from shapely.geometry import MultiPoint, Point

import trackintel as ti
import trackintel.preprocessing.positionfixes as ti_positionfixes
from trackintel.geogr.distances import point_haversine_dist
from trackintel.preprocessing.util import angle_centroid_multipoints

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
GEOD = Geod(ellps="WGS84")
MICROMETRE = 1e-6

# (name, stroll replay arguments, radius in metres, minutes)
CASES = [
    ("bold-street-long-stop, every fix", ["traces/bold-street-long-stop.gpx", "--distance-filter", "none"], 100, 5),
    ("bold-street-long-stop, gaussian noise", ["traces/bold-street-long-stop.gpx", "--distance-filter", "none", "--noise", "gaussian", "--seed", "3"], 100, 5),
    ("bold-street-long-stop, 25 m filter", ["traces/bold-street-long-stop.gpx"], 100, 5),
    ("bold-street-long-stop, 30 m and 2 minutes", ["traces/bold-street-long-stop.gpx", "--distance-filter", "none", "--visit-radius", "30", "--visit-minutes", "2"], 30, 2),
    ("trackintel google_trajectory", ["Fixtures/real-traces/trackintel/google_trajectory.csv", "--distance-filter", "none", "--rate", "0"], 100, 5),
    ("trackintel posmo_trajectory", ["Fixtures/real-traces/trackintel/posmo_trajectory.csv", "--distance-filter", "none", "--rate", "0", "--visit-radius", "50", "--visit-minutes", "1"], 50, 1),
]
GAP_MINUTES = 15


def run_stroll(stroll, args, radius, minutes):
    cmd = [stroll, "replay", *args, "--visits", "--visit-radius", str(radius), "--visit-minutes", str(minutes),
           "--format", "jsonl", "--group", "liverpool"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, (cmd, r.returncode, r.stderr[-2000:])
    return [json.loads(line) for line in r.stdout.splitlines()]


def distance(lat1, lon1, lat2, lon2):
    return GEOD.inv(lon1, lat1, lon2, lat2)[2]


def geodesic_dist(lon_1, lat_1, lon_2, lat_2, r=None, float_flag=False):
    """The WGS84 geodesic in place of trackintel's `point_haversine_dist` (same arguments)."""
    return GEOD.inv(lon_1, lat_1, lon_2, lat_2)[2]


def staypoints(fixes, radius, minutes, metric="geodesic"):
    """trackintel's staypoints on the fixes, and the fixes with their
    staypoint_id; `metric` geodesic measures by the WGS84 geodesic, haversine
    by trackintel's own sphere."""
    ti_positionfixes.point_haversine_dist = geodesic_dist if metric == "geodesic" else point_haversine_dist
    gdf = gpd.GeoDataFrame({"user_id": [0] * len(fixes), "tracked_at": pd.to_datetime([f["timestamp"] for f in fixes], utc=True, format="ISO8601")},
                           geometry=[Point(f["lon"], f["lat"]) for f in fixes], crs="EPSG:4326")
    pfs = ti.io.read_positionfixes_gpd(gdf, geom_col="geometry")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "No staypoints can be generated"
        pfs, sp = pfs.generate_staypoints(method="sliding", distance_metric="haversine", dist_threshold=radius, time_threshold=minutes,
                                          gap_threshold=GAP_MINUTES, include_last=True, exclude_duplicate_pfs=False)
    return pfs, sp


def centroid(points):
    """trackintel's own centroid of these (lon, lat) points, duplicates kept."""
    c = angle_centroid_multipoints(MultiPoint(points))[0]
    return c.y, c.x


def compare(name, events, radius, minutes, report):
    """The problems found comparing a replay's events with trackintel's staypoints."""
    problems = []
    fixes = [e for e in events if e["type"] == "location"]
    visits = [e for e in events if e["type"] == "visit"]
    t_of = {pd.Timestamp(f["timestamp"]): k for k, f in enumerate(fixes)}
    pfs, sp = staypoints(fixes, radius, minutes)
    times = pd.to_datetime([f["timestamp"] for f in fixes], utc=True, format="ISO8601")

    # 2. Pairs and timing.
    arrivals = {}
    stays = []
    previous = None
    for e in events:
        if e["type"] == "visit":
            arrival = pd.Timestamp(e["arrival"])
            if e["departure"] is None:
                if arrival in arrivals:
                    problems.append(f"{name}: a second arrival visit for the stay that began {e['arrival']}")
                arrivals[arrival] = e
                k = t_of.get(arrival)
                if k is None or previous is None or pd.Timestamp(previous["timestamp"]) - arrival < pd.Timedelta(minutes=minutes):
                    problems.append(f"{name}: arrival visit of {e['arrival']} at t={e['t']} is not after a fix {minutes} min into the stay")
                stays.append({"arrival": arrival, "departure": None, "arrival_event": e, "at": previous})
            else:
                departure = pd.Timestamp(e["departure"])
                if arrival not in arrivals:
                    problems.append(f"{name}: departure visit {e['arrival']} to {e['departure']} without an arrival visit")
                    stays.append({"arrival": arrival, "departure": departure, "arrival_event": None, "at": previous, "event": e})
                else:
                    stay = next(s for s in stays if s["arrival"] == arrival)
                    stay["departure"], stay["event"] = departure, e
                if previous is None or pd.Timestamp(previous["timestamp"]) != departure:
                    problems.append(f"{name}: departure visit of {e['departure']} is not at the fix that ended the stay")
        elif e["type"] == "location":
            previous = e

    # Stays that departed at a gap: trackintel drops them (docs/Visits.md).
    def gap_after(t):
        k = t_of.get(t)
        return k is not None and k + 1 < len(fixes) and times[k + 1] - times[k] > pd.Timedelta(minutes=GAP_MINUTES)
    at_gaps = [s for s in stays if s["departure"] is not None and gap_after(s["departure"])]
    compared = [s for s in stays if s not in at_gaps]

    # 1. The same stays.
    last = times[-1] if len(times) else None
    dedup = widest = 0.0
    if len(sp) != len(compared):
        problems.append(f"{name}: trackintel finds {len(sp)} staypoints, Stroll {len(compared)} visits")
    for k, (stay, (sp_id, row)) in enumerate(zip(compared, sp.iterrows())):
        if stay["arrival"] != row["started_at"]:
            problems.append(f"{name}: visit {k} arrives {stay['arrival']}, trackintel's staypoint {row['started_at']}")
        expected_end = stay["departure"] if stay["departure"] is not None else last
        if expected_end != row["finished_at"]:
            problems.append(f"{name}: visit {k} departs {stay['departure']}, trackintel's staypoint finishes {row['finished_at']}")
        members = pfs[pfs["staypoint_id"] == sp_id]
        points = [(p.x, p.y) for p in members.geometry]
        # 3. Centres.
        if stay["departure"] is not None and "event" in stay:
            e = stay["event"]
            if len(set(points)) == len(points):
                off = distance(e["lat"], e["lon"], row.geometry.y, row.geometry.x)
                if off > MICROMETRE:
                    problems.append(f"{name}: visit {k}'s centre is {off:.3g} m from trackintel's staypoint")
            else:
                lat, lon = centroid(points)
                off = distance(e["lat"], e["lon"], lat, lon)
                if off > MICROMETRE:
                    problems.append(f"{name}: visit {k}'s centre is {off:.3g} m from trackintel's centroid of its fixes")
                dedup = max(dedup, distance(e["lat"], e["lon"], row.geometry.y, row.geometry.x))
        a = stay["arrival_event"]
        if a is not None and stay["at"] is not None:
            upto = pd.Timestamp(stay["at"]["timestamp"])
            early = [(p.x, p.y) for p, t in zip(members.geometry, members["tracked_at"]) if t <= upto]
            if early:
                lat, lon = centroid(early)
                off = distance(a["lat"], a["lon"], lat, lon)
                if off > MICROMETRE:
                    problems.append(f"{name}: visit {k}'s arrival centre is {off:.3g} m from trackintel's centroid of its fixes so far")
        # 4. Haversine against the geodesic at the fix that ended the stay.
        end, first = t_of.get(row["finished_at"]), t_of.get(row["started_at"])
        if end is not None and first is not None and stay["departure"] is not None:
            f0, f1 = fixes[first], fixes[end]
            geodesic = distance(f0["lat"], f0["lon"], f1["lat"], f1["lon"])
            haversine = point_haversine_dist(f0["lon"], f0["lat"], f1["lon"], f1["lat"], float_flag=True)
            widest = max(widest, abs(geodesic - haversine) / geodesic)
    _, by_sphere = staypoints(fixes, radius, minutes, metric="haversine")
    sphere = set(zip(by_sphere["started_at"], by_sphere["finished_at"])) if len(by_sphere) else set()
    ellipsoid = set(zip(sp["started_at"], sp["finished_at"])) if len(sp) else set()
    report.append(f"{name}: {len(fixes)} fixes, {len(sp)} staypoints, {len(visits)} visit events; "
                  f"trackintel's distinct-position centre up to {dedup:.2f} m from the mean; "
                  f"haversine/geodesic up to {100 * widest:.2f} % apart at an ending fix, "
                  f"{len(ellipsoid - sphere)} staypoints end at another fix by haversine"
                  + (f"; {len(at_gaps)} stays ended by a gap (not trackintel's)" if at_gaps else ""))
    return problems


def selftest(stroll):
    name, args, radius, minutes = CASES[0]
    events = run_stroll(stroll, args, radius, minutes)
    assert not compare(name, events, radius, minutes, []), "the unperturbed output must pass"
    late = [dict(e) for e in events]
    first = next(e for e in late if e["type"] == "visit")
    for e in late:
        if e["type"] == "visit" and e["arrival"] == first["arrival"]:
            e["arrival"] = (pd.Timestamp(e["arrival"]) + pd.Timedelta(seconds=60)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    def reported(what, perturbed, word):
        problems = compare(name, perturbed, radius, minutes, [])
        found = [p for p in problems if word in p]
        assert found, (what, problems)
        print(f"selftest: {what} is reported: {found[0]}")

    reported("an arrival 60 s late", late, "arrives")
    departure = next(k for k, e in enumerate(events) if e["type"] == "visit" and e["departure"] is not None)
    reported("a dropped departure", events[:departure] + events[departure + 1:], "departs")
    first_arrival = next(e["arrival"] for e in events if e["type"] == "visit")
    reported("a dropped visit", [e for e in events if not (e["type"] == "visit" and e["arrival"] == first_arrival)], "staypoints")


def main():
    stroll = os.path.abspath(sys.argv[1])
    if "--selftest" in sys.argv[2:]:
        selftest(stroll)
        return
    problems, report = [], []
    found = 0
    for name, args, radius, minutes in CASES:
        events = run_stroll(stroll, args, radius, minutes)
        problems += compare(name, events, radius, minutes, report)
        found += sum(1 for e in events if e["type"] == "visit")
    for line in report:
        print("  " + line)
    assert found > 0, "no visit in any walk"
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"visits: {len(CASES)} walks agree with trackintel {ti.__version__} ({found} visit events)")


if __name__ == "__main__":
    main()
