#!/usr/bin/env python3
"""A city-sized street network as an OpenStreetMap PBF, the same for the same arguments.

    make_city_pbf.py OUT.pbf [WAYS] [--seed S]

Writes WAYS ways (default 1 000 000) of a city-like street network around
53.40, -2.98: a grid of junctions about 90 m apart, each moved by up to 20 m
(seeded), joined by one way per block side with 0 to 3 shape nodes bent off
the straight line, the junctions shared by the ways that meet there. Most block
sides are named residential streets; every tenth row and column is a named
secondary road; the rest are footways, service roads, steps, tracks, living
streets, pedestrian streets and cycleways, some closed to pedestrians
(`foot=no`, `access=private`, motorways, ways under construction) and some
opened again (`access=private` with `foot=yes`). One block in ten is crossed
diagonally by a footway through a node of its own, one in twenty holds a
building (a closed way that is not a highway), and about 300 shape nodes are
named cafes and bus stops.

The ways are written in OpenStreetMap's line format (OPL) to a temporary file
beside OUT, which `osmium cat` (osmium-tool) turns into the PBF.
"""
import argparse
import math
import os
import random
import subprocess
import sys
import time

LAT0, LON0 = 53.40, -2.98
SPACING = 90.0  # metres between junctions
JITTER = 20.0   # metres a junction is moved by, at most, in each direction
EARTH = 6371008.8
DEG_LAT = SPACING / (EARTH * math.pi / 180)
DEG_LON = DEG_LAT / math.cos(math.radians(LAT0))

# A block side's tags, by its share of the block sides that are not on a main road.
KINDS = [
    (0.800, "residential"),
    (0.050, "footway"),
    (0.030, "service"),
    (0.015, "service,access=private"),
    (0.010, "residential,access=private,foot=yes"),
    (0.020, "steps"),
    (0.015, "cycleway,foot=no"),
    (0.010, "track"),
    (0.010, "living_street"),
    (0.010, "pedestrian"),
    (0.010, "unclassified"),
    (0.005, "motorway"),
    (0.005, "construction"),
    (0.010, "path"),
]


def escape(text):
    """OPL's escaping: every character but letters, digits and a few marks as %hex%."""
    return "".join(c if (c.isascii() and (c.isalnum() or c in "-_.:;/()")) else f"%{ord(c):x}%" for c in text)


def tag_text(tags):
    return ",".join(f"{escape(k)}={escape(v)}" for k, v in tags)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("ways", nargs="?", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=47)
    args = parser.parse_args()
    if args.ways < 10:
        sys.exit("make_city_pbf: WAYS must be at least 10")
    began = time.monotonic()
    rng = random.Random(args.seed)
    # About 2.15 ways a junction: two block sides, a diagonal footway in one block in ten, a building in one in twenty.
    side = max(3, math.ceil((2.3 + math.sqrt(2.3 ** 2 + 4 * 2.15 * args.ways)) / (2 * 2.15)))
    cumulative, total = [], 0.0
    for share, kind in KINDS:
        total += share
        cumulative.append((total, kind))

    def junction_id(r, c):
        return 1 + r * side + c

    junctions = [None] * (side * side)
    for r in range(side):
        for c in range(side):
            junctions[r * side + c] = (LAT0 + (r - side / 2) * DEG_LAT + rng.uniform(-JITTER, JITTER) / SPACING * DEG_LAT,
                                       LON0 + (c - side / 2) * DEG_LON + rng.uniform(-JITTER, JITTER) / SPACING * DEG_LON)
    extra = []          # (lat, lon, tags) of the nodes after the junctions
    next_node = side * side + 1
    ways = []
    named = 0
    name_every = max(1, args.ways // 300)

    def shape_nodes(a, b, count):
        """`count` nodes between junctions a and b, bent up to 6 m off the line."""
        nonlocal next_node, named
        (alat, alon), (blat, blon) = junctions[a - 1], junctions[b - 1]
        ids = []
        for k in range(count):
            t = (k + 1) / (count + 1) + rng.uniform(-0.05, 0.05)
            off = rng.uniform(-6, 6) / SPACING
            lat = alat + (blat - alat) * t - (blon - alon) * off * DEG_LAT / DEG_LON
            lon = alon + (blon - alon) * t + (blat - alat) * off * DEG_LON / DEG_LAT
            tags = ()
            if (next_node % name_every) == 0 and named < 300:
                named += 1
                tags = (("amenity", "cafe"), ("name", f"Café {named}")) if named % 3 else (("highway", "bus_stop"), ("name", f"Stop {named}"))
            extra.append((lat, lon, tags))
            ids.append(next_node)
            next_node += 1
        return ids

    def side_way(a, b, main_road, name):
        if main_road:
            kind = "secondary,foot=no" if rng.random() < 0.03 else "secondary"
        else:
            u = rng.random() * total
            kind = next(k for limit, k in cumulative if u <= limit)
        highway, *rest = kind.split(",")
        tags = [("highway", highway)] + [tuple(t.split("=")) for t in rest]
        if highway in ("residential", "secondary", "living_street", "pedestrian", "unclassified"):
            tags.append(("name", name))
        nodes = [a] + shape_nodes(a, b, rng.randrange(4)) + [b]
        ways.append((nodes, tags))

    for r in range(side):
        if len(ways) >= args.ways:
            break
        for c in range(side - 1):
            side_way(junction_id(r, c), junction_id(r, c + 1), r % 10 == 0, f"{r} Street" if r % 10 else f"{r} Avenue")
        if r + 1 < side:
            for c in range(side):
                side_way(junction_id(r, c), junction_id(r + 1, c), c % 10 == 0, f"{c} Road" if c % 10 else f"{c} Boulevard")
            for c in range(side - 1):
                u = rng.random()
                if u < 0.10:
                    # A footway across the block, corner to corner through a node of its own.
                    (a, b) = (junction_id(r, c), junction_id(r + 1, c + 1)) if rng.random() < 0.5 else (junction_id(r, c + 1), junction_id(r + 1, c))
                    ways.append(([a] + shape_nodes(a, b, 1) + [b], [("highway", "footway")]))
                elif u < 0.15:
                    # A building inside the block: a closed way that is not a highway.
                    (lat, lon) = junctions[junction_id(r, c) - 1]
                    ring = []
                    for dy, dx in ((0.3, 0.3), (0.3, 0.7), (0.7, 0.7), (0.7, 0.3)):
                        extra.append((lat + dy * DEG_LAT, lon + dx * DEG_LON, ()))
                        ring.append(next_node)
                        next_node += 1
                    ways.append((ring + ring[:1], [("building", "yes")]))
    del ways[args.ways:]

    opl = args.out + ".opl"
    with open(opl, "w", encoding="utf-8") as f:
        lines = []
        for i, (lat, lon) in enumerate(junctions):
            lines.append(f"n{i + 1} x{lon:.7f} y{lat:.7f}\n")
        for i, (lat, lon, tags) in enumerate(extra):
            lines.append(f"n{side * side + 1 + i} x{lon:.7f} y{lat:.7f} T{tag_text(tags)}\n" if tags else f"n{side * side + 1 + i} x{lon:.7f} y{lat:.7f}\n")
            if len(lines) >= 200_000:
                f.write("".join(lines))
                lines = []
        for i, (nodes, tags) in enumerate(ways):
            lines.append(f"w{i + 1} T{tag_text(tags)} N{','.join(f'n{n}' for n in nodes)}\n")
            if len(lines) >= 200_000:
                f.write("".join(lines))
                lines = []
        f.write("".join(lines))
    subprocess.run(["osmium", "cat", "--overwrite", "-o", args.out, opl], check=True)
    os.remove(opl)
    print(f"make_city_pbf: {args.out}: {len(ways)} ways, {side * side + len(extra)} nodes ({side} x {side} junctions, "
          f"{named} named), {os.path.getsize(args.out) / 2**20:.1f} MiB, written in {time.monotonic() - began:.1f} s")


if __name__ == "__main__":
    main()
