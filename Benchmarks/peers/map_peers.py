#!/usr/bin/env python3
"""The map model beside the Python tools a user would pick for the same work,
on the same pins and the same regions, in one run:

- the visible set: shapely 2's STRtree (GEOS), queried with each region's
  rectangle (it answers the whole visible set; Stroll answers the delta);
- clusters: pysupercluster's getClusters for each region at its zoom level
  (the same algorithm, radius 40 points, 256-point tiles, zooms 0-16).

For each size, `stroll bench --variant map-pan` runs with and without
--cluster, dumping its pins and the regions it visits (a 1 km region
following the bundled walk, 25 m steps); then each peer is built over the
same pins and timed per region. Prints one table of medians and ratios
(Stroll / peer: lower is better) and writes out/bench-peers.json.

usage: map_peers.py STROLL [N ...]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy
import pysupercluster
import shapely


def stroll_bench(stroll, n, cluster, places, regions):
    args = [stroll, "bench", "--variant", "map-pan", "--places", str(n), "--json", "--dump-places", places, "--dump-regions", regions]
    if cluster:
        args.append("--cluster")
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    stroll = sys.argv[1]
    sizes = [int(a) for a in sys.argv[2:]] or [1000, 100_000, 1_000_000]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            places, regions = os.path.join(tmp, "places.csv"), os.path.join(tmp, "regions.csv")
            plain = stroll_bench(stroll, n, False, places, regions)
            clustered = stroll_bench(stroll, n, True, places, regions)
            pts = numpy.loadtxt(places, delimiter=",", skiprows=1, usecols=(1, 2))
            lonlat = numpy.ascontiguousarray(pts[:, ::-1])
            regs = numpy.loadtxt(regions, delimiter=",", skiprows=1, ndmin=2)

            t0 = time.perf_counter()
            tree = shapely.STRtree(shapely.points(lonlat))
            tree.query(shapely.box(0, 0, 0, 0))
            strtree_build = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            index = pysupercluster.SuperCluster(lonlat, min_zoom=0, max_zoom=16, radius=40, extent=256)
            supercluster_build = (time.perf_counter() - t0) * 1000

            strtree_us, cluster_us = [], []
            visible = drawn = 0
            for lat, lon, dlat, dlon, zoom in regs:
                west, east, south, north = lon - dlon / 2, lon + dlon / 2, lat - dlat / 2, lat + dlat / 2
                box = shapely.box(west, south, east, north)
                t = time.perf_counter_ns()
                found = tree.query(box)
                strtree_us.append((time.perf_counter_ns() - t) / 1000)
                visible += len(found)
                t = time.perf_counter_ns()
                clusters = index.getClusters(top_left=(west, north), bottom_right=(east, south), zoom=int(zoom))
                cluster_us.append((time.perf_counter_ns() - t) / 1000)
                drawn += len(clusters)
            row = {
                "places": n, "regions": len(regs),
                "stroll_pan_p50_us": plain["p50_us"], "strtree_p50_us": median(strtree_us),
                "stroll_cluster_pan_p50_us": clustered["p50_us"], "supercluster_p50_us": median(cluster_us),
                "stroll_build_ms": plain["build_ms"], "stroll_index_ms": plain["index_ms"], "strtree_build_ms": strtree_build,
                "stroll_cluster_build_ms": clustered["build_ms"], "stroll_cluster_index_ms": clustered["index_ms"],
                "supercluster_build_ms": supercluster_build,
                "mean_visible": visible / len(regs), "mean_drawn": drawn / len(regs),
            }
            rows.append(row)
            print(f"{n} pins done", file=sys.stderr)
    print("| pins | visible set: Stroll delta | shapely STRtree query | ratio | clusters: Stroll delta | pysupercluster getClusters | ratio | index build: Stroll grid / STRtree | cluster tree: Stroll / pysupercluster |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['places']:,} | {r['stroll_pan_p50_us']:.2f} µs | {r['strtree_p50_us']:.2f} µs | {r['stroll_pan_p50_us'] / r['strtree_p50_us']:.3f} "
              f"| {r['stroll_cluster_pan_p50_us']:.2f} µs | {r['supercluster_p50_us']:.2f} µs | {r['stroll_cluster_pan_p50_us'] / r['supercluster_p50_us']:.3f} "
              f"| {r['stroll_index_ms']:.0f} / {r['strtree_build_ms']:.0f} ms | {r['stroll_cluster_index_ms']:.0f} / {r['supercluster_build_ms']:.0f} ms |")
    os.makedirs("out", exist_ok=True)
    with open("out/bench-peers.json", "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
