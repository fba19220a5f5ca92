#!/usr/bin/env python3
"""`stroll geocode` against an oracle that shares no code with Stroll.

The Monaco extract (../shared/data/osm, else Fixtures/osm) is read with
pyosmium (PyPI `osmium`, libosmium), not by Stroll's reader. An address is
what docs/Geocoding.md says: a node or way with a non-blank `addr:street` or
`addr:place`, a node at its coordinates, a way at the centroid GEOS gives
(a closed way's polygon, area-weighted; an open way's line,
length-weighted; planar in longitude and latitude), computed here in exact
rational arithmetic from OpenStreetMap's 1e-7 degree integers. Ways with
nodes missing from the extract are left out, as Stroll leaves them out.

- Reverse: 300 points (seed 46): 100 drawn uniformly over the addresses'
  bounding box widened by 300 m, 200 at up to 120 m in any direction from
  an address drawn at random; each answered by `stroll geocode --reverse
  - --json` (one line each) and 10 of them again by the contract's one-point
  form (`--reverse LAT,LON --json`). The expected answer is the address
  nearest by GeographicLib's WGS84 geodesic (`geographiclib` on PyPI) when
  it is within 100 m, else an empty list. Ties: where the nearest two are
  within TIE_M of each other (rounding of the centroid can order them
  either way), either is accepted, and the count of such points is printed.
- Forward: every address with a house number, asked as `NUMBER STREET`,
  and as `STREET NUMBER, POSTCODE CITY` where it has both; the expected
  list is computed here from the matching rule of docs/Geocoding.md (tokens
  folded by NFD without non-spacing marks and lower-cased; the street or
  name as a run; every other token the house number, once, or a locality
  word; ranked by house number given, street before name, house number
  order, node before way, id), and the address asked for must be in it.
- Every placemark's fields must be its element's tags (name, else the
  house number and street; thoroughfare; subThoroughfare; locality;
  postalCode; isoCountryCode) and its position the oracle's (nodes to the
  1e-7 degree unit, ways within 1 mm).
- The same extract written as `.osm` XML by pyosmium must give exactly the
  same answers.
- The extract's points layer written as a GeoPackage by GDAL's ogr2ogr
  (Debian's gdal-bin; skipped, and said so, without it), read through
  `--addresses`: the same comparisons over the node addresses (the layer
  holds only nodes, their `addr:*` tags in GDAL's `other_tags`).

`--selftest` runs the comparison against Tests/IntegrationTests/perturbed_stroll.py
(Stroll answering one reverse lookup with the next point's address, dropping
the last address of a forward answer, renaming a street) and passes only when
each of those fails it, for its own reason. Without the flag the check runs,
then the self-test.

usage: check_geocode.py STROLL [--selftest]
"""
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
from fractions import Fraction

import osmium
from geographiclib.geodesic import Geodesic

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
from perturbed_stroll import must_fail  # noqa: E402

RADIUS_M = 100.0
TIE_M = 1e-6
CENTROID_M = 1e-3
POINTS = 300
UNIFORM = 100
NEAR_M = 120.0
ONE_BY_ONE = 10


def extract():
    for candidate in (os.path.join(ROOT, "..", "shared", "data", "osm", "monaco-latest.osm.pbf"),
                      os.path.join(ROOT, "Fixtures", "osm", "monaco-latest.osm.pbf")):
        if os.path.exists(candidate):
            return os.path.abspath(candidate)
    sys.exit("check_geocode: no monaco-latest.osm.pbf in ../shared/data/osm or Fixtures/osm")


def polygon_centroid(points):
    """GEOS's centroid of a ring, exactly: the area-weighted centroid; a ring of no area falls back to its line's."""
    area2, cx, cy = Fraction(0), Fraction(0), Fraction(0)
    x0, y0 = points[0]
    for (x1, y1), (x2, y2) in zip(points[1:], points[2:]):
        a = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        area2 += a
        cx += a * (x0 + x1 + x2)
        cy += a * (y0 + y1 + y2)
    if area2 == 0:
        return line_centroid(points)
    return float(cx / (3 * area2)) / 1e7, float(cy / (3 * area2)) / 1e7


def line_centroid(points):
    total, cx, cy = 0.0, 0.0, 0.0
    for (x1, y1), (x2, y2) in zip(points, points[1:]):
        length = math.hypot(x2 - x1, y2 - y1)
        total += length
        cx += length * (x1 + x2) / 2
        cy += length * (y1 + y2) / 2
    if total == 0:
        return points[0][0] / 1e7, points[0][1] / 1e7
    return cx / total / 1e7, cy / total / 1e7


class Addresses(osmium.SimpleHandler):
    def __init__(self):
        super().__init__()
        self.found = []

    def keep(self, kind, o, lon, lat, exact):
        tags = {t.k: t.v for t in o.tags}
        street = (tags.get("addr:street") or "").strip() or (tags.get("addr:place") or "").strip()
        if not street:
            return
        tag = lambda k: (tags.get(k) or "").strip() or None  # noqa: E731
        country = tag("addr:country")
        country = country.upper() if country and len(country) == 2 and country.isalpha() else None
        self.found.append({"osm": f"{kind}/{o.id}", "kind": 0 if kind == "node" else 1, "id": o.id, "street": street,
                           "houseNumber": tag("addr:housenumber"), "name": tag("name"), "city": tag("addr:city"),
                           "suburb": tag("addr:suburb"), "postcode": tag("addr:postcode"),
                           "state": tag("addr:state") or tag("addr:province"), "country": country,
                           "lon": lon, "lat": lat, "exact": exact})

    def node(self, n):
        self.keep("node", n, n.location.x / 1e7, n.location.y / 1e7, (n.location.y, n.location.x))

    def way(self, w):
        tags = {t.k: t.v for t in w.tags}
        if not ((tags.get("addr:street") or "").strip() or (tags.get("addr:place") or "").strip()):
            return
        points = []
        for n in w.nodes:
            if not n.location.valid():
                return
            points.append((n.location.x, n.location.y))
        if len(points) < 2:
            return
        refs = [n.ref for n in w.nodes]
        closed = len(refs) >= 4 and refs[0] == refs[-1]
        lon, lat = polygon_centroid(points) if closed else line_centroid(points)
        self.keep("way", w, lon, lat, None)


def tokens(text):
    out, current = [], []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.category(ch) == "Mn":
            continue
        if ch.isalpha() or ch.isnumeric():
            current.append(ch)
        elif current:
            out.append("".join(current).lower())
            current = []
    if current:
        out.append("".join(current).lower())
    return out


def runs(run, seq):
    return [i for i in range(len(seq) - len(run) + 1) if seq[i:i + len(run)] == run] if run else []


def rank(query, a):
    """docs/Geocoding.md's rule: (house number missing, by name) or None."""
    best = None
    locality = {t for f in ("city", "suburb", "postcode", "state", "country") if a[f] for t in tokens(a[f])}
    number = tokens(a["houseNumber"]) if a["houseNumber"] else []
    for anchor, by_name in ((tokens(a["street"]), 1), (tokens(a["name"]) if a["name"] else [], 2)):
        for start in runs(anchor, query):
            rest = query[:start] + query[start + len(anchor):]
            numbered = 0
            at = runs(number, rest)
            if at:
                rest = rest[:at[0]] + rest[at[0] + len(number):]
                numbered = 1
            if all(t in locality for t in rest):
                r = (1 - numbered, by_name - 1)
                best = r if best is None or r < best else best
    return best


def house_order(number):
    text = number or ""
    digits = ""
    for ch in text:
        if ch.isascii() and ch.isdigit():
            digits += ch
        else:
            break
    return (int(digits[:18]) if digits else 2**63 - 1, text)


def expected_forward(query, addresses):
    q = tokens(query)
    matched = [(rank(q, a), a) for a in addresses]
    matched = [(r, a) for r, a in matched if r is not None]
    matched.sort(key=lambda m: (m[0], house_order(m[1]["houseNumber"]), m[1]["kind"], m[1]["id"]))
    return [a["osm"] for _, a in matched]


def lookups(stroll, osm, lines, reverse, option="--osm"):
    args = [stroll, "geocode", option, osm, *(["--reverse", "-"] if reverse else ["-"]), "--json"]
    r = subprocess.run(args, input="".join(line + "\n" for line in lines), capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(args)}: exit {r.returncode}: {r.stderr[:500]}"
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(answers) == len(lines), f"{len(lines)} lookups gave {len(answers)} answers"
    return answers


def one(stroll, osm, *args, option="--osm"):
    r = subprocess.run([stroll, "geocode", option, osm, *args, "--json"], capture_output=True, text=True)
    assert r.returncode == 0, f"stroll geocode {' '.join(args)}: exit {r.returncode}: {r.stderr[:500]}"
    return json.loads(r.stdout)


def check_placemark(p, by_osm, where):
    a = by_osm.get(p["osm"])
    assert a is not None, f"{where}: Stroll gave {p['osm']}, which is not an address of the extract"
    street_line = f"{a['houseNumber']} {a['street']}" if a["houseNumber"] else a["street"]
    want = {"name": a["name"] or street_line, "thoroughfare": a["street"], "subThoroughfare": a["houseNumber"],
            "locality": a["city"], "postalCode": a["postcode"], "isoCountryCode": a["country"]}
    for key, value in want.items():
        assert p[key] == value, f"{where}: {p['osm']}: {key} is {p[key]!r}, its tags say {value!r}"
    if a["exact"]:
        got = (round(p["lat"] * 1e7), round(p["lon"] * 1e7))
        assert got == a["exact"], f"{where}: {p['osm']} at {p['lat']},{p['lon']}, the node is at {a['lat']},{a['lon']}"
    else:
        off = Geodesic.WGS84.Inverse(p["lat"], p["lon"], a["lat"], a["lon"])["s12"]
        assert off <= CENTROID_M, f"{where}: {p['osm']}'s centroid is {off:.4f} m from the oracle's"


def compare(stroll, osm, addresses, xml=None, option="--osm"):
    by_osm = {a["osm"]: a for a in addresses}
    stats = {"addresses": len(addresses), "ways": sum(a["kind"] for a in addresses)}

    # Reverse.
    rng = random.Random(46)
    lat0, lat1 = min(a["lat"] for a in addresses), max(a["lat"] for a in addresses)
    lon0, lon1 = min(a["lon"] for a in addresses), max(a["lon"] for a in addresses)
    pad_lat, pad_lon = 300 / 111_000, 300 / (111_000 * math.cos(math.radians(lat1)))
    points = [(rng.uniform(lat0 - pad_lat, lat1 + pad_lat), rng.uniform(lon0 - pad_lon, lon1 + pad_lon)) for _ in range(UNIFORM)]
    for _ in range(POINTS - UNIFORM):
        a = rng.choice(addresses)
        moved = Geodesic.WGS84.Direct(a["lat"], a["lon"], rng.uniform(-180, 180), rng.uniform(0, NEAR_M))
        points.append((moved["lat2"], moved["lon2"]))
    answers = reverse_answers = lookups(stroll, osm, [f"{lat!r},{lon!r}" for lat, lon in points], reverse=True, option=option)
    found = ties = 0
    for (lat, lon), answer in zip(points, answers):
        where = f"reverse {lat!r},{lon!r}"
        ranked = sorted((Geodesic.WGS84.Inverse(lat, lon, a["lat"], a["lon"])["s12"], a["kind"], a["id"], a["osm"]) for a in addresses)
        near = [r for r in ranked if r[0] <= RADIUS_M]
        if not near:
            assert answer == [], f"{where}: Stroll gave {[p['osm'] for p in answer]}, the nearest address is {ranked[0][3]} at {ranked[0][0]:.3f} m (over {RADIUS_M:g} m)"
            continue
        found += 1
        accepted = [r[3] for r in near if r[0] - near[0][0] <= TIE_M]
        if len(accepted) > 1:
            ties += 1
        got = [p["osm"] for p in answer]
        assert len(got) == 1 and got[0] in accepted, \
            f"{where}: Stroll gave {got}, the nearest address is {near[0][3]} at {near[0][0]:.3f} m" + \
            (f" (then {near[1][3]} at {near[1][0]:.3f} m)" if len(near) > 1 else "")
        check_placemark(answer[0], by_osm, where)
    stats.update(points=POINTS, found=found, empty=POINTS - found, ties=ties)
    for (lat, lon), answer in zip(points[:ONE_BY_ONE], answers):
        alone = one(stroll, osm, f"--reverse={lat!r},{lon!r}", option=option)
        assert alone == answer, f"--reverse {lat!r},{lon!r} alone gave {alone}, among many {answer}"

    # Forward.
    queries = []
    for a in addresses:
        if not a["houseNumber"]:
            continue
        queries.append((f"{a['houseNumber']} {a['street']}", a["osm"]))
        if a["postcode"] and a["city"]:
            queries.append((f"{a['street']} {a['houseNumber']}, {a['postcode']} {a['city']}", a["osm"]))
    answers = lookups(stroll, osm, [q for q, _ in queries], reverse=False, option=option)
    for (query, asked), answer in zip(queries, answers):
        where = f"forward \"{query}\""
        got = [p["osm"] for p in answer]
        want = expected_forward(query, addresses)
        assert asked in want, f"{where}: the oracle's rule does not find {asked} itself"
        assert got == want, f"{where}: Stroll gave {got}, expected {want}"
        for p in answer:
            check_placemark(p, by_osm, where)
    stats.update(queries=len(queries), results=sum(len(a) for a in answers))
    # The same extract as .osm XML (written by pyosmium) must answer exactly as the PBF.
    if xml:
        assert lookups(stroll, xml, [f"{lat!r},{lon!r}" for lat, lon in points], reverse=True) == reverse_answers, \
            f"{xml}: the XML extract's reverse answers differ from the PBF's"
        assert lookups(stroll, xml, [q for q, _ in queries], reverse=False) == answers, \
            f"{xml}: the XML extract's forward answers differ from the PBF's"
    for (query, _), answer in zip(queries[:ONE_BY_ONE], answers):
        alone = one(stroll, osm, query, option=option)
        assert alone == answer, f"\"{query}\" alone gave {alone}, among many {answer}"
    assert stats["found"] and stats["empty"] and stats["queries"], f"too little compared: {stats}"
    return stats


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    stroll, only_selftest = sys.argv[1], "--selftest" in sys.argv[2:]
    osm = extract()
    start = time.time()
    reader = Addresses()
    reader.apply_file(osm, locations=True)
    addresses = reader.found
    if not only_selftest:
        with tempfile.TemporaryDirectory() as folder:
            xml = os.path.join(folder, "monaco.osm")
            writer = osmium.SimpleWriter(xml)
            for o in osmium.FileProcessor(osm):
                writer.add(o)
            writer.close()
            stats = compare(stroll, osm, addresses, xml)
            gpkg = os.path.join(folder, "monaco.gpkg")
            if shutil.which("ogr2ogr"):
                # GDAL's points layer: the nodes, their addr:* tags in other_tags.
                subprocess.run(["ogr2ogr", "-q", "-f", "GPKG", gpkg, osm, "points"], check=True)
                nodes = [a for a in addresses if a["kind"] == 0]
                gstats = compare(stroll, gpkg, nodes, option="--addresses")
                print(f"check_geocode: {gpkg} (ogr2ogr's points layer, through --addresses): {gstats['addresses']} node addresses; "
                      f"reverse: {gstats['found']} points with the nearest node address within {RADIUS_M:g} m, {gstats['empty']} with none; "
                      f"forward: {gstats['queries']} queries, {gstats['results']} placemarks, each equal to the oracle's")
            else:
                print("check_geocode: ogr2ogr (Debian's gdal-bin) not found: the GeoPackage source is not checked")
        print(f"check_geocode: {osm}: {stats['addresses']} addresses ({stats['ways']} ways); reverse: {stats['points']} points, "
              f"{stats['found']} with the nearest address within {RADIUS_M:g} m ({stats['ties']} ties), {stats['empty']} with none; "
              f"forward: {stats['queries']} queries, {stats['results']} placemarks, each equal to the oracle's; the XML extract's the same "
              f"({time.time() - start:.1f} s)")
    with tempfile.TemporaryDirectory() as folder:
        must_fail(stroll, [("geocode-other-address", "the nearest address is"),
                           ("geocode-drop-result", "expected"),
                           ("geocode-rename-street", "thoroughfare is")],
                  lambda s: compare(s, osm, addresses), folder, "check_geocode")
    print(f"check_geocode: ok ({time.time() - start:.1f} s)")


if __name__ == "__main__":
    main()
