#!/usr/bin/env python3
"""Checks `stroll replay --cluster` against pysupercluster, an independent
implementation of the same algorithm (C++ with a KD-tree, by Wemap).

For random pins in two groups and for the 64 Liverpool CityBike stations with
the lecture theatres, a walk is replayed with the map following it at several
spans (zoom levels). For every `map` event, each group's pins are clustered by
pysupercluster with the same radius, tile size and zooms, and asked for the
same region at the event's zoom. The two must agree on:

- the clusters: the same number, each with the same count, position
  (1e-9 degrees) and expansion zoom;
- their membership: the count-weighted Web Mercator mean of the members
  Stroll lists is the position pysupercluster computed for that cluster
  (pysupercluster does not list members; a different membership would move
  the mean);
- the pins drawn on their own: the same set of positions.

usage: check_clusters.py STROLL
"""
import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile

import numpy
import pysupercluster

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
RADIUS, TILE, MAP_WIDTH, MAX_ZOOM = 40.0, 256.0, 390.0, 16


def mercator(lat, lon):
    s = math.sin(math.radians(lat))
    return lon / 360 + 0.5, min(1.0, max(0.0, 0.5 - 0.25 * math.log((1 + s) / (1 - s)) / math.pi))


def load_places(paths):
    """id -> (group, lat, lon), and each group's ids in file order (the order Stroll builds in)."""
    places, order = {}, {}
    for path in paths:
        if path.endswith(".csv"):
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
            for r in rows:
                places[r["id"]] = (r["group"], float(r["latitude"]), float(r["longitude"]))
                order.setdefault(r["group"], []).append(r["id"])
        else:
            data = json.load(open(path))
            group = os.path.splitext(os.path.basename(path))[0]
            counts = {}
            for p in data:
                g = p.get("group", group)
                pid = p.get("id") or f"{g}-{counts.get(g, 0)}"
                counts[g] = counts.get(g, 0) + 1
                places[pid] = (g, p["latitude"], p["longitude"])
                order.setdefault(g, []).append(pid)
    return places, order


def check(stroll, trace, place_files, spans):
    places, order = load_places(place_files)
    trees = {g: pysupercluster.SuperCluster(numpy.array([[places[i][2], places[i][1]] for i in ids], dtype=float),
                                            min_zoom=0, max_zoom=MAX_ZOOM, radius=RADIUS, extent=TILE)
             for g, ids in order.items()}
    events = clusters_seen = 0
    for span in spans:
        args = [stroll, "replay", trace, "--cluster", "--follow", "--region-span", str(span), "--map-width", str(MAP_WIDTH),
                "--cluster-radius", str(RADIUS), "--format", "jsonl"]
        for p in place_files:
            args += ["--places", p]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            e = json.loads(line)
            if e["type"] != "map":
                continue
            events += 1
            r = e["region"]
            lat, lon = r["center"]["lat"], r["center"]["lon"]
            dlat, dlon = r["span"]["latDelta"], r["span"]["lonDelta"]
            zoom = e["zoom"]
            expected_zoom = max(0, min(MAX_ZOOM + 1, math.floor(math.log2(MAP_WIDTH * 360 / (dlon * TILE)))))
            assert zoom == expected_zoom, f"span {span}: zoom {zoom}, expected {expected_zoom}"
            for g in order:
                got = [c for c in e["clusters"] if c["group"] == g]
                theirs = trees[g].getClusters(top_left=(lon - dlon / 2, lat + dlat / 2), bottom_right=(lon + dlon / 2, lat - dlat / 2), zoom=zoom)
                want = sorted((c["count"], c["latitude"], c["longitude"], c["expansion_zoom"]) for c in theirs if c["count"] > 1)
                have = sorted((c["count"], c["lat"], c["lon"], c["expansionZoom"]) for c in got)
                where = f"span {span} m, t {e['t']}, group {g}, zoom {zoom}"
                assert len(want) == len(have), f"{where}: {len(have)} clusters, pysupercluster {len(want)}"
                for (wc, wlat, wlon, wz), (hc, hlat, hlon, hz) in zip(want, have):
                    assert wc == hc and wz == hz and abs(wlat - hlat) < 1e-9 and abs(wlon - hlon) < 1e-9, \
                        f"{where}: cluster ({hc}, {hlat}, {hlon}, {hz}) vs pysupercluster ({wc}, {wlat}, {wlon}, {wz})"
                for c in got:
                    members = c["members"]
                    assert len(members) == c["count"] and all(places[m][0] == g for m in members), f"{where}: {c['id']} members"
                    xs = [mercator(places[m][1], places[m][2]) for m in members]
                    mx, my = sum(x for x, _ in xs) / len(xs), sum(y for _, y in xs) / len(xs)
                    cx, cy = mercator(c["lat"], c["lon"])
                    assert abs(mx - cx) < 1e-12 and abs(my - cy) < 1e-12, f"{where}: {c['id']} is not the mean of its members"
                    clusters_seen += 1
                singles_want = sorted((round(c["latitude"], 9), round(c["longitude"], 9)) for c in theirs if c["count"] == 1)
                singles_have = sorted((round(places[i][1], 9), round(places[i][2], 9)) for i in e["visible"] if places[i][0] == g)
                assert singles_want == singles_have, f"{where}: pins drawn alone differ ({len(singles_have)} vs {len(singles_want)})"
    return events, clusters_seen


def main():
    stroll = sys.argv[1]
    walk = os.path.join(ROOT, "traces", "lime-street-to-campus.gpx")
    with tempfile.TemporaryDirectory() as tmp:
        # Random pins, two groups, over 8 km around the walk: clusters at every zoom.
        rng = random.Random(7)
        pins = os.path.join(tmp, "pins.csv")
        with open(pins, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "name", "latitude", "longitude", "group"])
            for k in range(6000):
                spread = 0.004 if k % 4 == 0 else 0.04
                w.writerow([f"p{k}", f"pin {k}", f"{53.405 + rng.uniform(-spread, spread):.7f}", f"{-2.975 + rng.uniform(-spread, spread) * 1.6:.7f}",
                            "cafes" if k % 3 else "bikes"])
        n, c = check(stroll, walk, [pins], [400, 1500, 6000, 25000, 100000])
        # A check that compared nothing would pass: it must have seen map events and clusters.
        assert n > 0 and c > 0, f"random pins: nothing compared ({n} map events, {c} clusters)"
        print(f"random pins: {n} map events, {c} clusters agree with pysupercluster")
        n, c = check(stroll, walk, [os.path.join(ROOT, "Fixtures/liverpool/citybike-stations-2014.json"), os.path.join(ROOT, "Fixtures/lecture-theatres.json")],
                     [300, 1200, 5000, 20000])
        assert n > 0 and c > 0, f"CityBike stations: nothing compared ({n} map events, {c} clusters)"
        print(f"CityBike stations and lecture theatres: {n} map events, {c} clusters agree with pysupercluster")


if __name__ == "__main__":
    main()
