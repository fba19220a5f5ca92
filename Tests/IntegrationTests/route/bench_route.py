#!/usr/bin/env python3
"""Walking routes at scale: stroll beside networkx on the same extracts and the same pairs, in one run.

    bench_route.py STROLL --city CITY.pbf [--queries N] [--city-peer-queries M] [--seed S]

For the Monaco extract (Fixtures/osm) and CITY.pbf (make_city_pbf.py's
million ways), in that order:

1. networkx's graph is built from the extract as check_route.py builds it
   (pyosmium reads the ways and their nodes' locations, the pedestrian rules
   of docs/Routing.md written again in Python, each segment's length by
   geographiclib), plus every node's ECEF position for A*'s heuristic; its
   time and the Python process's peak resident set after it are taken.
2. N random pairs of walkable nodes (seed S, as check_route.py picks them)
   are written a pair a line (LAT,LON, a tab, LAT,LON) and timed in `stroll
   bench --variant route --osm FILE --pairs PAIRS --json`: the network's build
   time, the process's peak resident set after it, each route's time
   (snapping the points included) at p50 and p99.
3. networkx's `astar_path` (the heuristic: the chord through the Earth
   between the nodes, as stroll's A* uses) is timed on the first M of the
   same pairs (all N on Monaco; M, default 200, on the city, where each
   search takes seconds in Python), between the node ids; where M < N,
   stroll bench is run again on those M pairs, and the table compares the
   two on the same pairs.
4. Those M pairs are asked of `stroll route - --json` and checked with
   check_route.py's check against networkx's answers: the same fate, the
   nodes asked for, the length within 0.1 %, the same nodes or a tie.

Prints a Markdown table of both sides and their ratio (networkx's figure over
stroll's). Peak resident sets are whole processes': stroll's includes the
extract's reading, networkx's the Python interpreter and its modules; the
networkx figure of the city is taken after Monaco's graph was dropped, and is
the larger of the two runs' peaks, so the city's.
"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

import networkx as nx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_route  # noqa: E402


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(samples, p):
    """Nearest rank, as stroll bench reports it."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p * len(ordered)) - 1))]


def ecef(where):
    """Every node's WGS84 Earth-centred position in metres."""
    a, f = 6378137.0, 1 / 298.257223563
    e2 = f * (2 - f)
    out = {}
    for node, (lat, lon) in where.items():
        phi, lam = math.radians(lat), math.radians(lon)
        s = math.sin(phi)
        n = a / math.sqrt(1 - e2 * s * s)
        out[node] = (n * math.cos(phi) * math.cos(lam), n * math.cos(phi) * math.sin(lam), n * (1 - e2) * s)
    return out


def stroll_bench(stroll, path, lines):
    """`stroll bench --variant route --pairs` on these pairs: its JSON object, and the process's time as process_s."""
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.write("".join(lines))
        pairs_file = f.name
    try:
        began = time.monotonic()
        r = subprocess.run([stroll, "bench", "--variant", "route", "--osm", path, "--pairs", pairs_file, "--json"],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"stroll bench --variant route --osm {path} exited {r.returncode}: {r.stderr[:300]}"
        mine = json.loads(r.stdout)
        mine["process_s"] = time.monotonic() - began
    finally:
        os.remove(pairs_file)
    return mine


def measure(stroll, path, queries, peer_queries, seed):
    name = os.path.basename(path)
    timings = {}
    began = time.monotonic()
    graph, where = check_route.network(path, timings)
    position = ecef(where)
    build_s = time.monotonic() - began
    peak = peak_mib()
    print(f"bench_route: {name}: networkx's graph of {graph.number_of_nodes()} walkable nodes and {graph.number_of_edges()} "
          f"segments built in {build_s:.1f} s (reading {timings['read_s']:.1f} s, geographiclib's lengths {timings['lengths_s']:.1f} s, "
          f"the graph {timings['graph_s']:.1f} s, ECEF for A* {build_s - sum(timings.values()):.1f} s); peak resident {peak:.0f} MiB",
          flush=True)
    chosen = check_route.pairs(graph, where, queries, seed)
    point = lambda n: f"{where[n][0]!r},{where[n][1]!r}"
    mine = stroll_bench(stroll, path, [f"{point(a)}\t{point(b)}\n" for a, b in chosen])
    print(f"bench_route: {name}: stroll built its network of {mine['nodes']} nodes and {mine['edges']} edges in "
          f"{mine['build_ms'] / 1000:.2f} s, peak resident {mine['peak_rss_mib']:.0f} MiB; {mine['queries']} routes "
          f"({mine['unreachable']} without a path) p50 {mine['p50_us']:.0f} µs, p99 {mine['p99_us']:.0f} µs; "
          f"the whole process {mine['process_s']:.1f} s", flush=True)
    same = mine
    if peer_queries < len(chosen):
        # networkx answers only the first pairs: stroll's times on those same pairs too, for the ratio.
        same = stroll_bench(stroll, path, [f"{point(a)}\t{point(b)}\n" for a, b in chosen[:peer_queries]])
        print(f"bench_route: {name}: stroll on the first {same['queries']} pairs only: p50 {same['p50_us']:.0f} µs, "
              f"p99 {same['p99_us']:.0f} µs", flush=True)

    def chord(u, v):
        return math.dist(position[u], position[v])

    asked = chosen[:peer_queries]
    samples, answers = [], {}
    for a, b in asked:
        began = time.perf_counter()
        try:
            nodes = nx.astar_path(graph, a, b, heuristic=chord, weight="length")
        except nx.NetworkXNoPath:
            nodes = None
        samples.append((time.perf_counter() - began) * 1e6)
        answers[(a, b)] = nodes
    unreachable = sum(1 for nodes in answers.values() if nodes is None)
    peer = {"build_s": build_s, "peak_mib": peak, "queries": len(asked), "unreachable": unreachable,
            "p50_us": percentile(samples, 0.5), "p99_us": percentile(samples, 0.99)}
    print(f"bench_route: {name}: networkx's astar_path on the first {len(asked)} of the pairs ({unreachable} without a path): "
          f"p50 {peer['p50_us']:.0f} µs, p99 {peer['p99_us']:.0f} µs", flush=True)

    def shortest(a, b):
        nodes = answers[(a, b)]
        if nodes is None:
            raise nx.NetworkXNoPath(f"no path between {a} and {b}")
        return sum(graph[x][y]["length"] for x, y in zip(nodes, nodes[1:])), nodes

    check_route.check(stroll, path, graph, where, asked, f"bench_route: {name}", shortest)
    summary = {"name": name, "nodes": graph.number_of_nodes(), "segments": graph.number_of_edges(), "stroll": mine,
               "stroll_same": same, "networkx": peer}
    del graph, where, position
    return summary


def table(results):
    rows = ["| extract | measure | stroll | networkx | networkx / stroll |", "|---|---|---|---|---|"]
    for r in results:
        s, same, p = r["stroll"], r["stroll_same"], r["networkx"]
        label = f"{r['name']} ({r['nodes']:,} walkable nodes)".replace(",", " ")
        lines = [
            ("network built", s["build_ms"] / 1000, p["build_s"], "{:.2f} s"),
            ("peak resident after the build", s["peak_rss_mib"], p["peak_mib"], "{:.0f} MiB"),
            (f"route p50, the same {p['queries']} pairs", same["p50_us"] / 1000, p["p50_us"] / 1000, "{:.2f} ms"),
            (f"route p99, the same {p['queries']} pairs", same["p99_us"] / 1000, p["p99_us"] / 1000, "{:.2f} ms"),
        ]
        for k, (what, mine, theirs, unit) in enumerate(lines):
            rows.append(f"| {label if k == 0 else ''} | {what} | {unit.format(mine)} | {unit.format(theirs)} | {theirs / mine:.1f} |")
        if same is not s:
            rows.append(f"| | route p50 and p99, {s['queries']} pairs | {s['p50_us'] / 1000:.2f} ms, {s['p99_us'] / 1000:.2f} ms "
                        f"| (not run: the first {p['queries']} only) | |")
    return "\n".join(rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stroll")
    parser.add_argument("--city", required=True, help="the city-sized extract (make_city_pbf.py)")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--city-peer-queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = [measure(args.stroll, check_route.extract(), args.queries, args.queries, args.seed)]
    results.append(measure(args.stroll, os.path.abspath(args.city), args.queries, min(args.queries, args.city_peer_queries), args.seed))
    with open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "unknown")
    print(f"\nbench_route: on {model}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}:\n")
    print(table(results))


if __name__ == "__main__":
    main()
