#!/usr/bin/env python3
"""Local search (`stroll search`, what MKLocalSearch answers) against the
Monaco extract read independently.

    check_search.py STROLL [--selftest]

pyosmium reads the nodes and ways of the Monaco extract (Fixtures/osm, else
../shared/data/osm) and the rules of docs/Search.md are written here a
second time: a point of interest is a node or way with a `name` and a tag
that makes it one; a way stands at its middle node; a cafe is
`amenity=cafe` (what `osmium tags-filter nw/amenity=cafe` selects); a query
word matches the start of a word of the name (NFKD, non-spacing marks left
out, lowercase, words of letters and digits) or a word of the category.
Each question is asked of `stroll search --osm FILE … --json`, and the
answer must hold the same places by OpenStreetMap id, each where pyosmium
puts it (to 1e-9 degrees), in the documented order (geodesic distance from
the centre to the millimetre, by geographiclib, then name in code point
order, nodes before ways, then id), with `distance_m` within 1 µm of
geographiclib's:

- every point of interest of the extract, ordered by name;
- every cafe of the extract (`--category cafe`, no area);
- the cafes inside a region around the casino (`--span`: the region test);
- "cafe" in that region: the cafes and the places whose name has a word
  that starts with "cafe";
- "coffee" within 1 km of the casino;
- every point of interest within 300 m of the casino.

--selftest runs the check against a stroll that drops a result and one that
swaps two neighbouring results, and passes only when each fails, naming
what differed.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import unicodedata

import osmium
from geographiclib.geodesic import Geodesic

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
from perturbed_stroll import must_fail  # noqa: E402

# docs/Search.md: the keys that make a named element a point of interest
# whatever their value, and the tags of the category table beyond them.
KEYS = {"amenity", "shop", "tourism", "leisure", "office", "craft", "healthcare", "historic"}
OTHER_TAGS = {("natural", "beach"), ("aeroway", "aerodrome"), ("aeroway", "heliport"), ("railway", "station"),
              ("railway", "halt"), ("public_transport", "station"), ("highway", "bus_stop"), ("boundary", "national_park")}
CAFE_WORDS = {"cafe", "coffee", "coffeehouse", "coffeeshop", "espresso"}
CASINO = (43.7394, 7.4270)
SPAN = (0.012, 0.016)


def extract():
    for path in (os.path.join(ROOT, "Fixtures", "osm", "monaco-latest.osm.pbf"),
                 os.path.join(ROOT, "..", "shared", "data", "osm", "monaco-latest.osm.pbf")):
        if os.path.exists(path):
            return os.path.abspath(path)
    sys.exit("check_search: no Monaco extract in Fixtures/osm or ../shared/data/osm")


def words(text):
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c) != "Mn")
    out, word = [], ""
    for c in folded:
        if unicodedata.category(c)[0] in "LN":
            word += c
        elif word:
            out.append(word.lower())
            word = ""
    if word:
        out.append(word.lower())
    return out


def points_of_interest(path):
    """{osm id: (name, lat, lon, is cafe)} for every point of interest of the extract."""
    places = {}

    def interesting(tags):
        name = tags.get("name", "").strip(" \t")
        if not name:
            return None
        if any(k in KEYS for k in tags) or any(tags.get(k) == v for k, v in OTHER_TAGS):
            return name
        return None

    class Reader(osmium.SimpleHandler):
        def node(self, n):
            tags = {t.k: t.v for t in n.tags}
            name = interesting(tags)
            if name:
                places[f"node/{n.id}"] = (name, n.location.lat, n.location.lon, tags.get("amenity") == "cafe")

        def way(self, w):
            tags = {t.k: t.v for t in w.tags}
            name = interesting(tags)
            if name and len(w.nodes):
                middle = w.nodes[len(w.nodes) // 2]
                if middle.location.valid():
                    places[f"way/{w.id}"] = (name, middle.location.lat, middle.location.lon, tags.get("amenity") == "cafe")

    Reader().apply_file(path, locations=True)
    return places


def distance(a, b):
    return Geodesic.WGS84.Inverse(a[0], a[1], b[0], b[1])["s12"]


def expected(places, keep, center=None, inside=lambda p, d: True):
    """The ids of the places `keep` keeps inside the area, in the documented order, with their distances."""
    rows = []
    for osm, (name, lat, lon, cafe) in places.items():
        if not keep(name, cafe):
            continue
        d = distance(center, (lat, lon)) if center else None
        if not inside((lat, lon), d):
            continue
        element, number = osm.split("/")
        rows.append(((math.floor(d * 1000 + 0.5) if d is not None else 0), [ord(c) for c in name],
                     0 if element == "node" else 1, int(number), osm, d))
    rows.sort(key=lambda r: r[:4])
    return [(r[4], r[5]) for r in rows]


def in_region(center, span):
    return lambda p, d: abs(p[0] - center[0]) <= span[0] / 2 and abs(p[1] - center[1]) <= span[1] / 2


def query_matches(query):
    asked = words(query)

    def keep(name, cafe):
        mine = words(name)
        return all(any(w.startswith(q) for w in mine) or (cafe and (q in CAFE_WORDS or (q.endswith("s") and q[:-1] in CAFE_WORDS)))
                   for q in asked)
    return keep


def questions():
    near = f"{CASINO[0]},{CASINO[1]}"
    span = f"{SPAN[0]},{SPAN[1]}"
    return [
        ("every point of interest", [], lambda n, c: True, None, lambda p, d: True),
        ("every cafe", ["--category", "cafe"], lambda n, c: c, None, lambda p, d: True),
        ("the cafes in the region", ["--category", "cafe", "--near", near, "--span", span], lambda n, c: c, CASINO, in_region(CASINO, SPAN)),
        ("\"cafe\" in the region", ["--near", near, "--span", span, "cafe"], query_matches("cafe"), CASINO, in_region(CASINO, SPAN)),
        ("\"coffee\" within 1 km", ["--near", near, "--radius", "1000", "coffee"], query_matches("coffee"), CASINO, lambda p, d: d <= 1000),
        ("everything within 300 m", ["--near", near, "--radius", "300"], lambda n, c: True, CASINO, lambda p, d: d <= 300),
    ]


def check(stroll, path, places, label="check_search"):
    summary = []
    for title, args, keep, center, inside in questions():
        want = expected(places, keep, center, inside)
        r = subprocess.run([stroll, "search", "--osm", path, "--json", *args], capture_output=True, text=True)
        assert r.returncode == 0, f"{title}: stroll search {' '.join(args)} exited {r.returncode}: {r.stderr.strip()}"
        got = json.loads(r.stdout)
        got_ids = [g["osm"] for g in got]
        want_ids = [w[0] for w in want]
        missing = sorted(set(want_ids) - set(got_ids))
        extra = sorted(set(got_ids) - set(want_ids))
        assert not missing and not extra, (f"{title}: the places differ from pyosmium's: missing from stroll "
                                           f"{[(m, places[m][0]) for m in missing]}, not expected {extra}")
        for k, (g, w) in enumerate(zip(got_ids, want_ids)):
            assert g == w, f"{title}: the order differs at position {k}: stroll has {g} ({places[g][0]}), expected {w} ({places[w][0]})"
        for g, (_, d) in zip(got, want):
            name, lat, lon, _ = places[g["osm"]]
            assert g["name"] == name, f"{title}: {g['osm']} is named {g['name']!r} by stroll, {name!r} by pyosmium"
            assert abs(g["lat"] - lat) <= 1e-9 and abs(g["lon"] - lon) <= 1e-9, \
                f"{title}: {g['osm']} stands at {g['lat']},{g['lon']} in stroll, {lat},{lon} in pyosmium"
            if d is not None:
                assert abs(g["distance_m"] - d) <= 1e-6, f"{title}: {g['osm']} is {g['distance_m']} m away in stroll, {d} m by geographiclib"
        summary.append(f"{title}: {len(got)}")
    print(f"{label}: " + "; ".join(summary))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stroll")
    parser.add_argument("--selftest", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    path = extract()
    places = points_of_interest(path)
    cafes = sum(1 for p in places.values() if p[3])
    print(f"check_search: {len(places)} points of interest in {os.path.basename(path)} by pyosmium, {cafes} of them named cafes")
    if args.selftest:
        with tempfile.TemporaryDirectory() as folder:
            must_fail(args.stroll, [("search-drop-result", "missing from stroll"), ("search-swap-results", "the order differs")],
                      lambda s: check(s, path, places, "check_search (perturbed)"), folder, "check_search")
    else:
        check(args.stroll, path, places)
    print(f"check_search: ok in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
