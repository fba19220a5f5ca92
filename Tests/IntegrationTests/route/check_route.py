#!/usr/bin/env python3
"""Walking routes against an independent shortest path.

    check_route.py STROLL [--pairs N] [--seed S] [--osm FILE] [--selftest]

Builds the walking network of the Monaco extract (Fixtures/osm, else
../shared/data/osm), or of --osm FILE, again in Python: pyosmium reads the
ways and their node locations, the pedestrian rules of docs/Routing.md are
written here a second time, every pair of successive nodes of a walkable way
is an edge whose length is geographiclib's WGS84 geodesic, and networkx's
Dijkstra gives the shortest path. N random pairs of nodes (seed S) are then asked of `stroll route -
--osm FILE --json` (a pair a line on standard input; each answer as `stroll
route A B --osm FILE --json` gives it, or the error and exit code it gives),
each node given as LAT,LON, and each answer must have:

- the same fate: a route when networkx finds a path, exit 65 when it finds none;
- `from` and `to` on the nodes asked for (the snapped point of a node is the node);
- `distance_m` within 0.1 % of networkx's length (the largest difference is
  printed; it is at the level of rounding);
- `nodes` equal to networkx's path, or, where they differ, a path of the same
  graph as short as networkx's to 1e-9 (a tie: two shortest paths; counted).

Nodes that share their location with another walkable node are not asked
for: a point there is on two nodes, and either is right.

Each route's `crossings` must be the number of its inner nodes tagged as
crossings (highway=crossing, traffic_signals; railway=crossing,
level_crossing: pyosmium reads the tags), and `stroll route A B
--pause-at-crossings 30 -o walk.gpx` must stand 30 s at each of them and
nowhere else.

Then three of the routes are replayed with `stroll replay --route A B --osm
FILE --format jsonl --distance-filter none` beside the extract's cafes: the
first line must be the `route` line (its nodes from A to B, its distance_m
networkx's shortest path within 0.1 %), every
location event must lie within 1 m of a walkable segment (the fixes are
interpolated along the route, so they stay on the network), move at the
walking speed (1.4 m/s), and the cafes must be ranked along the way.

On the Monaco extract, `stroll route "Place du Casino" "Musée
Océanographique" --speed 1.2 -o walk.gpx` then `stroll replay walk.gpx`
beside the cafes must likewise stay within 1 m of the network, move at
1.2 m/s and change the cafes' order along the way.

--selftest runs the check on the first pairs against a stroll whose
`distance_m` is 0.2 % long, one that drops a node from `nodes` and one that
moves a replayed fix 2.2 m north, and passes only when each fails, naming
what differed.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import networkx as nx
import numpy as np
import osmium
from geographiclib.geodesic import Geodesic

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
from perturbed_stroll import must_fail  # noqa: E402

# The pedestrian rules, from the OpenStreetMap wiki (Key:highway, Key:foot,
# Key:access, OSM tags for routing/Access restrictions) as docs/Routing.md gives them.
HIGHWAYS = {"footway", "path", "pedestrian", "steps", "living_street", "residential", "service", "unclassified", "road", "track",
            "tertiary", "tertiary_link", "secondary", "secondary_link", "primary", "primary_link", "trunk", "trunk_link",
            "cycleway", "bridleway", "corridor", "elevator", "platform"}


def pedestrian(tags):
    if tags.get("highway") not in HIGHWAYS:
        return False
    foot = tags.get("foot")
    if foot in ("no", "use_sidepath"):
        return False
    if foot in ("yes", "designated", "permissive"):
        return True
    return tags.get("access") not in ("no", "private") and tags.get("service") != "private"


def extract():
    for path in (os.path.join(ROOT, "Fixtures", "osm", "monaco-latest.osm.pbf"),
                 os.path.join(ROOT, "..", "shared", "data", "osm", "monaco-latest.osm.pbf")):
        if os.path.exists(path):
            return os.path.abspath(path)
    sys.exit("check_route: no Monaco extract in Fixtures/osm or ../shared/data/osm")


def waits_to_cross(tags):
    """docs/Routing.md's crossing nodes: where a pedestrian waits to cross a road or a railway."""
    highway = tags.get("highway")
    if highway == "crossing":
        return tags.get("crossing") != "no"
    return highway == "traffic_signals" or tags.get("railway") in ("crossing", "level_crossing")


def network(path, timings=None, crossings=None):
    """The graph of walkable segments and every walkable node's location; `timings`, a dict, gets the
    seconds spent reading the extract, measuring the segments and making the graph; `crossings`, a set,
    the ids of the nodes tagged as crossings (waits_to_cross)."""
    graph = nx.Graph()
    where = {}
    steps = []
    began = time.monotonic()

    class Ways(osmium.SimpleHandler):
        if crossings is not None:
            def node(self, n):
                if waits_to_cross({t.k: t.v for t in n.tags}):
                    crossings.add(n.id)

        def way(self, w):
            tags = {t.k: t.v for t in w.tags}
            if not pedestrian(tags):
                return
            previous = None
            for n in w.nodes:
                if not n.location.valid():
                    previous = None  # a node missing from the extract cuts the way
                    continue
                where[n.ref] = (n.location.lat, n.location.lon)
                if previous is not None and previous != n.ref:
                    steps.append((previous, n.ref))
                previous = n.ref

    Ways().apply_file(path, locations=True)
    read = time.monotonic()
    inverse, distance = Geodesic.WGS84.Inverse, Geodesic.DISTANCE
    lengths = [inverse(*where[a], *where[b], distance)["s12"] for a, b in steps]
    measured = time.monotonic()
    for (a, b), length in zip(steps, lengths):
        if not graph.has_edge(a, b) or graph[a][b]["length"] > length:
            graph.add_edge(a, b, length=length)
    if timings is not None:
        timings.update(read_s=read - began, lengths_s=measured - read, graph_s=time.monotonic() - measured)
    return graph, where


def pairs(graph, where, count, seed):
    at = {}
    for node, location in where.items():
        at.setdefault(location, []).append(node)
    alone = sorted(n for n in graph.nodes if len(at[where[n]]) == 1)
    rng = random.Random(seed)
    return [tuple(rng.sample(alone, 2)) for _ in range(count)]


def ask(stroll, path, where, chosen):
    """Every pair's answer from one `stroll route - --json` (a pair a line on standard input, an answer a
    line), as (exit code, the route's JSON, the error) each, the exit code the pair's own run would give."""
    point = lambda n: f"{where[n][0]!r},{where[n][1]!r}"
    pairs = "".join(f"{point(a)}\t{point(b)}\n" for a, b in chosen)
    r = subprocess.run([stroll, "route", "-", "--osm", path, "--json"], input=pairs, capture_output=True, text=True)
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and len(lines) == len(chosen), (
        f"stroll route - answered {len(lines)} of {len(chosen)} pairs, exit {r.returncode}: {r.stderr[:300]}")
    answers = []
    for line in lines:
        answer = json.loads(line)
        if "error" in answer:
            answers.append((answer["exit"], "", answer["error"]))
        else:
            answers.append((0, line, ""))
    return answers


def dijkstra(graph):
    """networkx's shortest path between two nodes, as (length, nodes); NetworkXNoPath without one."""
    return lambda a, b: nx.single_source_dijkstra(graph, a, b, weight="length")


def check(stroll, path, graph, where, chosen, label="check_route", shortest=None, crossings=None):
    """Every pair's route from `stroll route -` against `shortest(a, b)` (networkx's Dijkstra unless given);
    with `crossings` (the crossing nodes' ids), each route's count of crossings against its inner nodes'."""
    shortest = shortest or dijkstra(graph)
    began = time.monotonic()
    answers = ask(stroll, path, where, chosen)
    routes = unreachable = ties = crossed = 0
    worst = 0.0
    for (a, b), (code, out, err) in zip(chosen, answers):
        what = f"route from node {a} to node {b}"
        try:
            length, expected = shortest(a, b)
        except nx.NetworkXNoPath:
            assert code == 65, f"{what}: networkx finds no path, but stroll exited {code}: {out[:200]} {err[:200]}"
            assert "no walkable path" in err, f"{what}: exit 65 without saying there is no walkable path: {err[:200]}"
            unreachable += 1
            continue
        assert code == 0, f"{what}: networkx finds a path of {length:.3f} m, but stroll exited {code}: {err[:300]}"
        answer = json.loads(out)
        for key, node in (("from", a), ("to", b)):
            got = (answer[key]["lat"], answer[key]["lon"])
            assert got == where[node], f"{what}: {key} is {got}, not node {node} at {where[node]}"
        difference = abs(answer["distance_m"] - length) / max(length, 1e-9)
        worst = max(worst, difference)
        assert difference <= 1e-3, (f"{what}: distance_m {answer['distance_m']:.6f} m, networkx's shortest path "
                                    f"{length:.6f} m: they differ by {difference:.3%}, more than 0.1 %")
        nodes = answer["nodes"]
        if nodes != expected:
            first = next((k for k, (x, y) in enumerate(zip(nodes, expected)) if x != y), min(len(nodes), len(expected)))
            steps = list(zip(nodes, nodes[1:]))
            missing = [s for s in steps if not graph.has_edge(*s)]
            assert not missing, (f"{what}: nodes differ from networkx's path at index {first} and are not a path of the "
                                 f"walking network: no edge {missing[0][0]}-{missing[0][1]}")
            walked = sum(graph[x][y]["length"] for x, y in steps)
            assert nodes[:1] == [a] and nodes[-1:] == [b] and abs(walked - length) <= 1e-9 * length + 1e-9, (
                f"{what}: nodes differ from networkx's path at index {first}: stroll's path is {walked:.6f} m, "
                f"networkx's {length:.6f} m")
            ties += 1
        if crossings is not None:
            passed = sum(1 for n in nodes[1:-1] if n in crossings)
            assert answer["crossings"] == passed, (f"{what}: crossings {answer['crossings']}, but {passed} of the route's inner "
                                                   f"nodes are tagged as crossings")
            crossed += passed
        routes += 1
    print(f"{label}: {len(chosen)} pairs: {routes} routes equal to networkx's shortest path "
          f"(largest length difference {worst:.1e}, relative; {ties} ties between two shortest paths), "
          f"{unreachable} without a walkable path in either; stroll answered in {time.monotonic() - began:.1f} s"
          + (f"; {crossed} crossings passed, each a node tagged as one" if crossings is not None else ""))


def pauses(stroll, path, where, crossings, pair, seconds=30, label="check_route"):
    """`stroll route A B --pause-at-crossings S -o walk.gpx`: the walker stands S seconds at each crossing
    node the route passes (the same position twice, S seconds apart), and nowhere else."""
    (a, b) = pair
    point = lambda n: f"{where[n][0]!r},{where[n][1]!r}"
    what = f"route from node {a} to node {b} with --pause-at-crossings {seconds}"
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "walk.gpx")
        r = subprocess.run([stroll, "route", point(a), point(b), "--osm", path, "--pause-at-crossings", str(seconds),
                            "--start", "2024-05-01T09:00:00Z", "-o", out], capture_output=True, text=True)
        assert r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr[:300]}"
        answer = json.loads(subprocess.run([stroll, "route", point(a), point(b), "--osm", path, "--json"],
                                           capture_output=True, text=True, check=True).stdout)
        import xml.etree.ElementTree as ET
        from datetime import datetime
        ns = {"g": "http://www.topografix.com/GPX/1/1"}
        points = [((float(p.get("lat")), float(p.get("lon"))),
                   datetime.fromisoformat(p.find("g:time", ns).text.replace("Z", "+00:00")).timestamp())
                  for p in ET.parse(out).getroot().iterfind(".//g:trkpt", ns)]
    stands = [(p, t1 - t0) for (p, t0), (q, t1) in zip(points, points[1:]) if p == q]
    expected = [where[n] for n in answer["nodes"][1:-1] if n in crossings]
    assert [p for p, _ in stands] == expected, (f"{what}: stands at {len(stands)} points, the route passes {len(expected)} "
                                                f"crossing nodes; first difference at "
                                                f"{next((x for x, y in zip(stands, expected) if x[0] != y), None)}")
    assert all(abs(d - seconds) < 1e-3 for _, d in stands), f"{what}: stands of {[round(d, 3) for _, d in stands]} s"
    print(f"{label}: {what}: {len(stands)} stands of {seconds} s, each at a crossing node the route passes")


def segments(graph, where):
    """Every segment's ends, as rows lat, lon, lat, lon."""
    ends = np.array([[*where[a], *where[b]] for a, b in graph.edges])
    return ends


def planar(lat, lon, origin):
    """Metres east and north of `origin` (equirectangular: 0.3 % is enough for a 1 m test)."""
    radius = 6371008.8
    return np.radians(lon - origin[1]) * radius * np.cos(np.radians(origin[0])), np.radians(lat - origin[0]) * radius


def walk(stroll, path, ends, where, pair, label="check_route", graph=None):
    (a, b) = pair
    point = lambda n: f"{where[n][0]!r},{where[n][1]!r}"
    r = subprocess.run([stroll, "replay", "--route", point(a), point(b), "--osm", path, "--format", "jsonl", "--distance-filter", "none",
                        "--places", path, "--osm-filter", "amenity=cafe"], capture_output=True, text=True)
    what = f"replay --route from node {a} to node {b}"
    assert r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr[:300]}"
    events = [json.loads(line) for line in r.stdout.splitlines()]
    assert events and events[0]["type"] == "route", f"{what}: the first line is not the route: {r.stdout[:200]}"
    route = events[0]
    assert route["nodes"][:1] == [a] and route["nodes"][-1:] == [b], f"{what}: the route line's nodes run from {route['nodes'][:1]} to {route['nodes'][-1:]}"
    if graph is not None:
        length = nx.dijkstra_path_length(graph, a, b, weight="length")
        assert abs(route["distance_m"] - length) <= 1e-3 * length, f"{what}: the route line's distance_m {route['distance_m']:.3f} m, networkx's {length:.3f} m"
    on_network(events, ends, what, label, f"the route line first ({route['distance_m']:.1f} m, {len(route['nodes'])} nodes); ")


def named_walk(stroll, path, ends, label="check_route", speed=1.2):
    """`stroll route` between two places the extract names, written as GPX, then `stroll replay` of that file
    beside the extract's cafes: on the network, at the speed asked, and the cafes' order changing along it."""
    what = f"stroll route \"{NAMED[0]}\" \"{NAMED[1]}\" --speed {speed} -o walk.gpx, then stroll replay walk.gpx"
    with tempfile.TemporaryDirectory() as folder:
        gpx = os.path.join(folder, "walk.gpx")
        r = subprocess.run([stroll, "route", *NAMED, "--osm", path, "--speed", str(speed), "-o", gpx], capture_output=True, text=True)
        assert r.returncode == 0, f"{what}: stroll route exit {r.returncode}: {r.stderr[:300]}"
        r = subprocess.run([stroll, "replay", gpx, "--format", "jsonl", "--distance-filter", "none", "--places", path,
                            "--osm-filter", "amenity=cafe"], capture_output=True, text=True)
        assert r.returncode == 0, f"{what}: stroll replay exit {r.returncode}: {r.stderr[:300]}"
    events = [json.loads(line) for line in r.stdout.splitlines()]
    rankings = [e for e in events if e["type"] == "ranking"]
    changes = sum(1 for e in rankings[1:] if e["changed"])
    assert changes > 0, f"{what}: the cafes' order never changes along the walk"
    on_network(events, ends, what, label, f"{changes} changes of the cafes' order along it; ", speed=speed)


# Two places of the Monaco extract, by name.
NAMED = ("Place du Casino", "Musée Océanographique")


def on_network(events, ends, what, label, said, speed=1.4):
    """Every location event within 1 m of a walkable segment and moving at `speed`; the cafes ranked."""
    fixes = [e for e in events if e["type"] == "location"]
    assert fixes, f"{what}: no location events"
    origin = (float(ends[:, 0].mean()), float(ends[:, 1].mean()))
    ax, ay = planar(ends[:, 0], ends[:, 1], origin)
    bx, by = planar(ends[:, 2], ends[:, 3], origin)
    dx, dy = bx - ax, by - ay
    squared = np.maximum(dx * dx + dy * dy, 1e-12)
    worst = 0.0
    for f in fixes:
        px, py = planar(f["lat"], f["lon"], origin)
        t = np.clip(((px - ax) * dx + (py - ay) * dy) / squared, 0, 1)
        off = float(np.min(np.hypot(ax + t * dx - px, ay + t * dy - py)))
        assert off <= 1.0, f"{what}: the fix at t={f['t']} ({f['lat']}, {f['lon']}) is {off:.2f} m from every walkable segment"
        worst = max(worst, off)
        if f["speed"] >= 0:
            assert abs(f["speed"] - speed) < 1e-6, f"{what}: the fix at t={f['t']} moves at {f['speed']} m/s, not {speed}"
    rankings = [e for e in events if e["type"] == "ranking"]
    assert rankings, f"{what}: no ranking of the cafes along the walk"
    print(f"{label}: {what}: {said}{len(fixes)} fixes, each within {worst * 1000:.3f} mm of a walkable segment, at {speed} m/s; "
          f"{len(rankings)} rankings of the cafes")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stroll")
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--selftest", action="store_true")
    parser.add_argument("--osm", help="the extract (default: Monaco's)")
    args = parser.parse_args()
    path = os.path.abspath(args.osm) if args.osm else extract()
    began = time.monotonic()
    crossings = set()
    graph, where = network(path, crossings=crossings)
    print(f"check_route: {os.path.basename(path)}: {graph.number_of_nodes()} walkable nodes, {graph.number_of_edges()} segments, "
          f"read in {time.monotonic() - began:.1f} s")
    chosen = pairs(graph, where, args.pairs, args.seed)
    if args.selftest:
        # Pairs with a route of three nodes or more, so that one can be dropped.
        reachable = [p for p in chosen if nx.has_path(graph, *p) and nx.shortest_path_length(graph, *p) >= 2][:4]
        ends = segments(graph, where)
        with tempfile.TemporaryDirectory() as folder:
            must_fail(args.stroll, [("route-longer", "distance_m"), ("route-drop-node", "nodes differ")],
                      lambda s: check(s, path, graph, where, reachable, "check_route (self-test)"), folder, "check_route")
            crossing = [p for p in chosen if nx.has_path(graph, *p)
                        and any(n in crossings for n in nx.dijkstra_path(graph, *p, weight="length")[1:-1])][:2]
            must_fail(args.stroll, [("route-miss-crossing", "tagged as crossings")],
                      lambda s: check(s, path, graph, where, crossing, "check_route (self-test)", crossings=crossings),
                      folder, "check_route")
            must_fail(args.stroll, [("replay-off-route", "from every walkable segment")],
                      lambda s: walk(s, path, ends, where, reachable[0], "check_route (self-test)"), folder, "check_route")
        return
    check(args.stroll, path, graph, where, chosen, crossings=crossings)
    ends = segments(graph, where)
    long_enough = [p for p in chosen if nx.has_path(graph, *p) and nx.dijkstra_path_length(graph, *p, weight="length") > 500][:3]
    for pair in long_enough:
        walk(args.stroll, path, ends, where, pair, graph=graph)
    if os.path.basename(path).startswith("monaco"):
        named_walk(args.stroll, path, ends)
    crossing = next((p for p in chosen if nx.has_path(graph, *p)
                     and sum(n in crossings for n in nx.dijkstra_path(graph, *p, weight="length")[1:-1]) >= 2), None)
    if crossing:
        pauses(args.stroll, path, where, crossings, crossing)
    else:
        print(f"check_route: no route of {os.path.basename(path)} passes two crossings: --pause-at-crossings is not checked on it")


if __name__ == "__main__":
    main()
