#!/usr/bin/env python3
"""GeoPackage against GDAL (Debian's gdal-bin: ogr2ogr, ogrinfo), an
independent reader and writer of the format.

1. Places to GeoJSON (`stroll places convert`), that GeoJSON to a GeoPackage
   by `ogr2ogr`, read by Stroll: the same places (ids, names, subtitles,
   groups, coordinates to 1e-11 degrees: GDAL's GeoJSON reader) as the
   GeoJSON read directly.
2. Places written by Stroll as a GeoPackage open in `ogrinfo` with the same
   feature count, and `ogr2ogr` gives back the same places.
3. `stroll replay --gpkg` on bundled and real walks: `ogrinfo` counts as
   many fixes as the replay's location events and as many order_changes rows
   as places in its changed rankings; `ogr2ogr` gives the same coordinates
   (exactly through a GeoPackage copy, to 1e-11 degrees through GeoJSON) and
   times, and each change's rows in rank order are the ranking's order.
4. A layer reprojected by `ogr2ogr -t_srs EPSG:3857` is refused (exit 65)
   with the SRS named; JSON -> GeoPackage -> JSON in Stroll is the identity.
5. Shown failing: steps 1 and 2 on the coffee houses against a Stroll whose
   GeoPackage has its first point 11 mm north of where it should be
   (Tests/IntegrationTests/perturbed_stroll.py, `move-gpkg-point`).

usage: check_gpkg.py STROLL
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from perturbed_stroll import must_fail  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
STROLL = sys.argv[1]
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")


def run(args, expect=0):
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == expect, (args, r.returncode, r.stderr[-2000:])
    for line in r.stderr.splitlines():
        assert not line.startswith(("ERROR", "Warning")), (args, line)
    return r


def places_json(path):
    with open(path) as f:
        return json.load(f)


def same_places(a, b, what, tolerance=0.0):
    assert len(a) == len(b), (what, len(a), len(b))
    for p, q in zip(a, b):
        for key in ("id", "name", "subtitle", "group"):
            assert p.get(key) == q.get(key), (what, key, p, q)
        assert abs(p["latitude"] - q["latitude"]) <= tolerance and abs(p["longitude"] - q["longitude"]) <= tolerance, (what, p, q)


# GDAL's GeoJSON writer prints coordinates to 15 significant digits and its
# reader does not round every 17-digit number to the nearest double (an ulp
# off now and then), so what passes through GDAL's GeoJSON is compared to
# 1e-11 degrees (a micrometre); GeoPackages, which hold the doubles
# themselves, to the last bit.
GEOJSON_DIGITS = 1e-11


def feature_count(gpkg, layer):
    out = run(["ogrinfo", "-so", "-ro", gpkg, layer]).stdout
    for line in out.splitlines():
        if line.startswith("Feature Count:"):
            return int(line.split(":")[1])
    raise AssertionError(f"ogrinfo gave no feature count for {gpkg} {layer}:\n{out}")


SOURCES = [
    ("coffee-houses", [os.path.join(ROOT, "Fixtures", "CityCycleRideLocations.plist")]),
    ("lecture-theatres", [os.path.join(ROOT, "Fixtures", "lecture-theatres.json")]),
    ("citybike", [os.path.join(ROOT, "Fixtures", "liverpool", "citybike-stations-2014.json")]),
    ("monaco-food", [os.path.join(ROOT, "Fixtures", "osm", "monaco-latest.osm.pbf"), "--osm-filter", "amenity=cafe,restaurant,bar"]),
]

WALKS = [os.path.join(ROOT, "traces", name) for name in sorted(os.listdir(os.path.join(ROOT, "traces"))) if name.endswith(".gpx")]
WALKS += [os.path.join(ROOT, "Fixtures", "real-traces", "togeojson", "apple_watch_route.gpx")]


def check_places(stroll, t, sources):
    """Steps 1 and 2: places through ogr2ogr and back, with `stroll`."""
    for name, source in sources:
        run([stroll, "places", "convert", *source[:1], t(f"{name}.geojson"), *source[1:]])
        run([stroll, "places", "convert", t(f"{name}.geojson"), t(f"{name}.json")])
        direct = places_json(t(f"{name}.json"))
        # Comparing empty lists would pass: each source must have given places.
        assert len(direct) > 0, f"{name}: no places read, nothing to compare"
        run(["ogr2ogr", "-f", "GPKG", t(f"{name}-gdal.gpkg"), t(f"{name}.geojson"), "-nln", name])
        r = run([stroll, "places", "convert", t(f"{name}-gdal.gpkg"), t(f"{name}-gdal.json")])
        same_places(direct, places_json(t(f"{name}-gdal.json")), f"{name}: ogr2ogr's GeoPackage", GEOJSON_DIGITS)

        run([stroll, "places", "convert", t(f"{name}.json"), t(f"{name}-stroll.gpkg")])
        assert feature_count(t(f"{name}-stroll.gpkg"), "places") == len(direct), name
        run(["ogr2ogr", "-f", "GeoJSON", t(f"{name}-back.geojson"), t(f"{name}-stroll.gpkg"), "places"])
        run([stroll, "places", "convert", t(f"{name}-back.geojson"), t(f"{name}-back.json")])
        same_places(direct, places_json(t(f"{name}-back.json")), f"{name}: Stroll's GeoPackage to GeoJSON by ogr2ogr", GEOJSON_DIGITS)
        run(["ogr2ogr", "-f", "GPKG", t(f"{name}-copy.gpkg"), t(f"{name}-stroll.gpkg"), "places"])
        run([stroll, "places", "convert", t(f"{name}-copy.gpkg"), t(f"{name}-copy.json")])
        same_places(direct, places_json(t(f"{name}-copy.json")), f"{name}: Stroll's GeoPackage copied by ogr2ogr")
        run([stroll, "places", "convert", t(f"{name}-stroll.gpkg"), t(f"{name}-again.json")])
        with open(t(f"{name}.json")) as a, open(t(f"{name}-again.json")) as b:
            assert a.read() == b.read(), f"{name}: JSON -> GeoPackage -> JSON changed the file"
        print(f"gpkg: {name}: {len(direct)} places the same through ogr2ogr's GeoPackage, "
              f"Stroll's GeoPackage in ogrinfo and ogr2ogr, and JSON -> GeoPackage -> JSON")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        t = lambda name: os.path.join(tmp, name)
        check_places(STROLL, t, SOURCES)

        # 3: runs.
        for walk in WALKS:
            gpkg = t("run.gpkg")
            events = [json.loads(line) for line in run([STROLL, "replay", walk, "--gpkg", gpkg, "--format", "jsonl"]).stdout.splitlines()]
            locations = [e for e in events if e["type"] == "location"]
            changes = [e for e in events if e["type"] == "ranking" and e["changed"]]
            assert feature_count(gpkg, "fixes") == len(locations) > 0, walk
            assert feature_count(gpkg, "places") == 24, walk
            rows = sum(len(c["order"]) for c in changes)
            assert feature_count(gpkg, "order_changes") == rows > 0, walk
            run(["ogr2ogr", "-f", "GeoJSON", t("fixes.geojson"), gpkg, "fixes"])
            with open(t("fixes.geojson")) as f:
                fixes = json.load(f)["features"]
            for feature, l in zip(fixes, locations):
                lon, lat = feature["geometry"]["coordinates"][:2]
                assert abs(lat - l["lat"]) <= GEOJSON_DIGITS and abs(lon - l["lon"]) <= GEOJSON_DIGITS, (walk, feature, l)
                assert abs(feature["properties"]["t"] - l["t"]) < 1e-9 and feature["properties"]["time"] == l["timestamp"], (walk, feature, l)
            run(["ogr2ogr", "-f", "CSV", t("changes.csv"), gpkg, "order_changes"])
            with open(t("changes.csv")) as f:
                table = list(csv.DictReader(f))
            k = 0
            for c in changes:
                block = table[k:k + len(c["order"])]
                k += len(c["order"])
                assert [r["place_id"] for r in block] == c["order"], (walk, c["t"], c["group"])
                assert all(r["group"] == c["group"] and int(r["rank"]) == i + 1 for i, r in enumerate(block)), (walk, c["t"])
                assert all(abs(float(r["distance_m"]) - d) <= 1e-9 * max(1.0, d) for r, d in zip(block, c["distances"])), (walk, c["t"])
            # Exactly, through a copy GDAL writes: the places layer of that copy as Stroll reads it.
            run(["ogr2ogr", "-f", "GPKG", t("fixes-copy.gpkg"), gpkg, "fixes"])
            run([STROLL, "places", "convert", t("fixes-copy.gpkg"), t("fixes-copy.json")])
            copied = places_json(t("fixes-copy.json"))
            assert [(p["latitude"], p["longitude"]) for p in copied] == [(l["lat"], l["lon"]) for l in locations], walk
            for f in (gpkg, t("fixes-copy.gpkg")):
                os.remove(f)
            print(f"gpkg: replay {os.path.basename(walk)} --gpkg: {len(locations)} fixes, 24 places, {len(changes)} order changes "
                  f"({rows} rows) in ogrinfo, coordinates, times and orders as the replay's events")

        # 4: another SRS.
        run(["ogr2ogr", "-f", "GPKG", "-t_srs", "EPSG:3857", t("mercator.gpkg"), t("coffee-houses.geojson")])
        r = run([STROLL, "places", "info", t("mercator.gpkg")], expect=65)
        assert "EPSG:3857" in r.stderr and "ogr2ogr -t_srs EPSG:4326" in r.stderr, r.stderr
        print("gpkg: a layer in EPSG:3857 refused with exit 65, the SRS named")

        # 5: the check fails on a GeoPackage with a point moved.
        must_fail(STROLL, [("move-gpkg-point", "Stroll's GeoPackage to GeoJSON by ogr2ogr")],
                  lambda wrapper: check_places(wrapper, t, SOURCES[:1]), tmp, "gpkg")


if __name__ == "__main__":
    main()
