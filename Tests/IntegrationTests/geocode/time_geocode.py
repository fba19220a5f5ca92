#!/usr/bin/env python3
"""How long `stroll geocode` takes on the Monaco extract: reading the
addresses into the index, and one reverse and one forward lookup.

    time_geocode.py STROLL [EXTRACT]

Each figure is the median of 5 runs. Reading: `stroll geocode --osm EXTRACT
--reverse - --json` with no lookup on standard input (the process's start,
the extract read twice and the index built). A lookup: the same command
with 20 000 lookups (reverse: points drawn uniformly, seed 46, over the
bounding box of the numbered address nodes, as pyosmium reads them;
forward: `NUMBER STREET` of its numbered addresses in turn), less the run without, divided by 20 000. Prints the processor.
"""
import os
import random
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LOOKUPS = 20_000
RUNS = 5


def seconds(command, text):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        r = subprocess.run(command, input=text, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        assert r.returncode == 0, f"{' '.join(command)}: exit {r.returncode}: {r.stderr[:300]}"
    return statistics.median(times), r.stdout


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    stroll = sys.argv[1]
    osm = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "Fixtures", "osm", "monaco-latest.osm.pbf")
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "unknown")
    reverse = [stroll, "geocode", "--osm", osm, "--reverse", "-", "--json"]
    forward = [stroll, "geocode", "--osm", osm, "-", "--json"]
    import osmium  # the numbered addresses, read independently: their NUMBER STREET and where the nodes are
    streets, lats, lons = [], [], []
    for o in osmium.FileProcessor(osm):
        tags = {t.k: t.v for t in o.tags}
        if "addr:housenumber" in tags and "addr:street" in tags:
            streets.append(f"{tags['addr:housenumber']} {tags['addr:street']}")
            if o.is_node():
                lats.append(o.location.lat)
                lons.append(o.location.lon)
    rng = random.Random(46)
    points = "".join(f"{rng.uniform(min(lats), max(lats))!r},{rng.uniform(min(lons), max(lons))!r}\n" for _ in range(LOOKUPS))
    queries = "".join(streets[i % len(streets)] + "\n" for i in range(LOOKUPS))
    read, _ = seconds(reverse, "")
    reverse_total, out = seconds(reverse, points)
    found = sum(1 for line in out.splitlines() if line != "[]")
    forward_total, _ = seconds(forward, queries)
    print(f"stroll geocode on {os.path.basename(osm)}, {model}, median of {RUNS} runs:")
    print(f"  reading the addresses and building the index (with the process's start): {read * 1e3:.0f} ms")
    print(f"  a reverse lookup: {(reverse_total - read) / LOOKUPS * 1e6:.1f} us ({found} of {LOOKUPS} points within 100 m of an address)")
    print(f"  a forward lookup: {(forward_total - read) / LOOKUPS * 1e6:.1f} us ({len(streets)} numbered addresses asked in turn)")


if __name__ == "__main__":
    main()
