#!/usr/bin/env python3
"""The proximity workload of `stroll bench` in the Python tools a user would
otherwise pick, on the same places (`stroll bench --dump-places`) and the same
walker positions (the walk's delivered fixes with the 25 m filter, back and
forth to 1000 updates, from `stroll replay --format jsonl`):

  numpy    vectorised haversine + argsort (full), argpartition (topk), masks (region)
  shapely  STRtree (shapely 2) in a local metric plane: query_nearest / query
  sklearn  BallTree with the haversine metric
  scipy    cKDTree on unit vectors (chord order)

The peers' orders are spherical, not exact WGS84 geodesic orders; Stroll's
are exact. Prints a table of p50 per-update latency in microseconds and the
ratio of the best peer to Stroll.
"""
import argparse
import json
import math
import subprocess
import tempfile
import time

import numpy as np

R = 6371008.8


def positions(stroll, trace):
    out = subprocess.run([stroll, "replay", trace, "--format", "jsonl"], capture_output=True, text=True, check=True)
    path = [(e["lat"], e["lon"]) for e in map(json.loads, out.stdout.splitlines()) if e.get("type") == "location"]
    result, forward = list(path), False
    while len(result) < 1000:
        seq = path if forward else path[::-1]
        result += seq[1:]
        forward = not forward
    return np.array(result)


def p50(samples):
    return float(np.percentile(np.array(samples) * 1e6, 50))


def timeit(fn, walker):
    samples = []
    for lat, lon in walker:
        t = time.perf_counter()
        fn(lat, lon)
        samples.append(time.perf_counter() - t)
    return p50(samples)


def peers(places, walker, variant):
    # Slow peers get fewer updates at large N (the p50 of a few dozen is stable).
    walker = walker[: max(30, min(len(walker), int(2e7 / len(places))))] if variant == "full" else walker
    lat = np.radians(places[:, 0])
    lon = np.radians(places[:, 1])
    coslat = np.cos(lat)
    results = {}

    def haversine(a, b):
        la, lo = math.radians(a), math.radians(b)
        h = np.sin((lat - la) / 2) ** 2 + math.cos(la) * coslat * np.sin((lon - lo) / 2) ** 2
        return 2 * R * np.arcsin(np.sqrt(h))

    if variant == "full":
        results["numpy"] = timeit(lambda a, b: np.argsort(haversine(a, b), kind="stable"), walker)
    elif variant == "topk":
        def topk(a, b):
            d = haversine(a, b)
            idx = np.argpartition(d, 20)[:20] if len(d) > 20 else np.arange(len(d))
            return idx[np.argsort(d[idx])]
        results["numpy"] = timeit(topk, walker)
    else:
        def region(a, b):
            dlat = 1000 / (111132.954 - 559.822 * math.cos(2 * math.radians(a)))
            dlon = 1000 / (111412.84 * math.cos(math.radians(a)))
            return np.nonzero((np.abs(places[:, 0] - a) <= dlat / 2) & (np.abs(places[:, 1] - b) <= dlon / 2))[0]
        results["numpy"] = timeit(region, walker)

    try:
        import shapely
        from shapely import STRtree
        x = R * (lon - lon.mean()) * coslat.mean()
        y = R * (lat - lat.mean())
        tree = STRtree(shapely.points(x, y))
        def plane(a, b):
            return shapely.Point(R * (math.radians(b) - lon.mean()) * coslat.mean(), R * (math.radians(a) - lat.mean()))
        if variant == "full":
            results["shapely"] = timeit(lambda a, b: np.argsort(shapely.distance(tree.geometries, plane(a, b)), kind="stable"), walker)
        elif variant == "topk":
            def near(a, b):
                p = plane(a, b)
                idx = tree.query(p.buffer(60))
                return idx[np.argsort(shapely.distance(tree.geometries.take(idx), p))][:20]
            results["shapely"] = timeit(near, walker)
        else:
            results["shapely"] = timeit(lambda a, b: tree.query(shapely.box(*plane(a, b).buffer(500).bounds)), walker)
    except ImportError:
        pass

    try:
        from sklearn.neighbors import BallTree
        if variant == "full" and len(places) > 100_000:
            raise ImportError("a full sort of a million places by BallTree takes seconds per update")
        ball = BallTree(np.column_stack([lat, lon]), metric="haversine")
        k = len(places) if variant == "full" else min(20, len(places))
        if variant in ("full", "topk"):
            results["sklearn"] = timeit(lambda a, b: ball.query([[math.radians(a), math.radians(b)]], k=k), walker)
        else:
            results["sklearn"] = timeit(lambda a, b: ball.query_radius([[math.radians(a), math.radians(b)]], r=707 / R), walker)
    except ImportError:
        pass

    try:
        from scipy.spatial import cKDTree
        xyz = np.column_stack([coslat * np.cos(lon), coslat * np.sin(lon), np.sin(lat)])
        kd = cKDTree(xyz)
        def unit(a, b):
            la, lo = math.radians(a), math.radians(b)
            return [math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)]
        k = len(places) if variant == "full" else min(20, len(places))
        if variant in ("full", "topk"):
            results["scipy"] = timeit(lambda a, b: kd.query(unit(a, b), k=k), walker)
        else:
            results["scipy"] = timeit(lambda a, b: kd.query_ball_point(unit(a, b), r=707 / R), walker)
    except ImportError:
        pass
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stroll", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("sizes", nargs="+", type=int)
    args = ap.parse_args()
    walker = positions(args.stroll, args.trace)
    rows = []
    for n in args.sizes:
        for variant in ("full", "topk", "region"):
            with tempfile.NamedTemporaryFile(suffix=".csv") as f:
                cmd = [args.stroll, "bench", "--places", str(n), "--variant", variant, "--json", "--dump-places", f.name]
                mine = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
                places = np.loadtxt(f.name, delimiter=",", skiprows=1, usecols=(1, 2), ndmin=2)
            theirs = peers(places, walker, variant)
            best = min(theirs, key=theirs.get)
            rows.append((variant, n, mine["p50_us"], theirs, best))
    names = ["numpy", "shapely", "sklearn", "scipy"]
    print(f"{'variant':8} {'N':>9} {'stroll':>10} " + " ".join(f"{n:>10}" for n in names) + f" {'best peer':>10} {'ratio':>7}")
    for variant, n, mine, theirs, best in rows:
        cells = " ".join(f"{theirs[p]:10.1f}" if p in theirs else f"{'-':>10}" for p in names)
        print(f"{variant:8} {n:9d} {mine:10.2f} {cells} {best:>10} {theirs[best] / mine:6.1f}x")
    print("p50 microseconds per update; ratio = best peer / stroll (higher is better for stroll)")


if __name__ == "__main__":
    main()
