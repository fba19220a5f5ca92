#!/usr/bin/env python3
"""A country-sized OpenStreetMap extract read in bounded memory.

Writes (osmium-tool, from OSM's line format) a PBF shaped like a country extract:
NODES nodes on a street grid, most of them untagged way nodes, ways of 8 to
40 nodes, a few thousand tagged nodes and closed ways (cafés and
restaurants, buildings), and multipolygon relations. `stroll places info
--osm-filter amenity=cafe,restaurant` must read the same places as `osmium
tags-filter` + `osmium export` (ids), with a peak resident memory far below
what holding every node would take (the bound is printed beside the file's
node count).

usage: check_large_pbf.py STROLL [NODES]
"""
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from osmids import osm_id  # noqa: E402

STROLL = sys.argv[1]
NODES = int(sys.argv[2]) if len(sys.argv) > 2 else 8_000_000
# 8 million nodes held as Swift objects in a dictionary would take far more
# than this; Stroll keeps only the nodes its matched elements need.
BOUND_MB = 160


def opl_tags(tags):
    """OPL's tag list: `%` and the separators written as `%xx%` escapes."""
    def esc(v):
        return "".join(c if c.isalnum() or c in "_:-." else f"%{ord(c):x}%" for c in v)
    return ",".join(f"{esc(k)}={esc(v)}" for k, v in tags.items())


def write(path, rng):
    """The extract as OSM's line format (OPL), turned into a PBF by osmium-tool:
    formatting lines in Python and compressing in osmium's C++ takes a fifth of
    the time pyosmium's writer takes for 8 million node objects."""
    opl = path + ".opl"
    lat0, lon0 = 50.0, -5.0
    with open(opl, "w", buffering=1 << 20) as out:
        lines = []
        for i in range(1, NODES + 1):
            tags = ""
            if i % 997 == 0:
                tags = " T" + opl_tags({"amenity": rng.choice(["cafe", "restaurant", "pub"]), "name": f"Place {i}"})
            # Surveyed positions are not a grid: a jitter of up to 100 m keeps the deltas as large as real data's.
            jitter = rng.random()
            lines.append(f"n{i} x{lon0 + (i % 4000) * 0.0015 + jitter * 0.0014:.7f} y{lat0 + (i // 4000) * 0.0011 + (1 - jitter) * 0.0009:.7f}{tags}\n")
            if len(lines) == 100_000:
                out.write("".join(lines))
                lines = []
        out.write("".join(lines))
        ways = 0
        matched_ways = []
        i = 1
        way_id = 1
        while i + 40 < NODES:
            n = rng.randint(8, 40)
            refs = list(range(i, i + n))
            tags = {"highway": "residential"}
            if way_id % 211 == 0:
                # A closed building around 4 grid nodes, sometimes a café.
                refs = [i, i + 1, i + 4001, i + 4000, i]
                tags = {"building": "yes"} if way_id % 2 else {"building": "yes", "amenity": "restaurant", "name": f"Hall {way_id}"}
                if "amenity" in tags:
                    matched_ways.append(way_id)
            out.write(f"w{way_id} T{opl_tags(tags)} N{','.join(f'n{r}' for r in refs)}\n")
            way_id += 1
            i += n
            ways += 1
        rels = 0
        for k in range(0, len(matched_ways) - 1, 50):
            outer = matched_ways[k]
            out.write(f"r{k + 1} T{opl_tags({'type': 'multipolygon', 'amenity': 'cafe', 'name': f'Square {k}'})} Mw{outer}@outer\n")
            rels += 1
    subprocess.run(["osmium", "cat", "--overwrite", "-o", path, opl], check=True)
    os.remove(opl)
    return ways, rels


def main():
    rng = random.Random(2026)
    with tempfile.TemporaryDirectory() as tmp:
        pbf = os.path.join(tmp, "country.osm.pbf")
        started = time.monotonic()
        ways, rels = write(pbf, rng)
        size = os.path.getsize(pbf)
        print(f"osm-large: wrote {NODES} nodes, {ways} ways, {rels} relations ({size / 1e6:.0f} MB) in {time.monotonic() - started:.0f} s")

        started = time.monotonic()
        r = subprocess.run([STROLL, "places", "convert", pbf, os.path.join(tmp, "places.json"), "--osm-filter", "amenity=cafe,restaurant"],
                           capture_output=True, text=True)
        took = time.monotonic() - started
        assert r.returncode == 0, r.stderr[-2000:]
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        with open(os.path.join(tmp, "places.json")) as f:
            ours = {p["id"] for p in json.load(f)}

        subprocess.run(["osmium", "tags-filter", "-o", os.path.join(tmp, "f.osm.pbf"), pbf, "nwr/amenity=cafe,restaurant"],
                       check=True, capture_output=True)
        subprocess.run(["osmium", "export", "-f", "geojsonseq", "--add-unique-id=type_id", "-o", os.path.join(tmp, "f.geojsonseq"),
                        os.path.join(tmp, "f.osm.pbf")], check=True, capture_output=True)
        theirs = set()
        with open(os.path.join(tmp, "f.geojsonseq")) as f:
            for line in f:
                feature = json.loads(line.strip("\x1e"))
                if feature["properties"].get("amenity") in ("cafe", "restaurant"):
                    theirs.add(osm_id(feature))
        assert ours == theirs, (len(ours), len(theirs), sorted(ours ^ theirs)[:10])
        assert peak_mb < BOUND_MB, f"peak resident memory {peak_mb:.0f} MB, bound {BOUND_MB} MB"
        print(f"osm-large: {len(ours)} places as osmium's, read in {took:.1f} s "
              f"({size / 1e6 / took:.0f} MB/s) with a peak of {peak_mb:.0f} MB resident (bound {BOUND_MB} MB for {NODES} nodes)")


if __name__ == "__main__":
    main()
