#!/usr/bin/env python3
"""Places from PostGIS, with PostGIS as the oracle of the order.

On a throwaway cluster (pgcluster.py): 100 000 places around Liverpool in
two groups (seeded; some share a position, many share a name) in a
geography(Point, 4326) column, loaded with psql's \\copy. Stroll reads them
through a URI with the password from PGPASSWORD and from a .pgpass file,
every place exactly; how long it takes beside psql's \\copy of the same
rows is printed, not asserted.

The order: Stroll replays a bundled walk (traces/pier-head-to-guild.gpx,
2.5 km from the Pier Head to the Guild, with a 50 m distance filter: 48
delivered fixes, one every 50 m of the walk) against all 100 000 places. At every delivered fix (the
`location` event's lat and lon, as `--format jsonl` prints them) PostGIS
orders each group itself, `ORDER BY ST_Distance(geog, point, true)` (the
spheroid), and Stroll's `ranking` event for that fix and group must be
PostGIS's order:

- the same places, every one;
- every distance within DISTANCE_M = 1e-6 m of PostGIS's: PostGIS measures
  with PROJ's geodesic (Karney's algorithm), Stroll with its chord formula
  documented within 1e-6 m of Karney's (Sources/Proximity);
- any two places in the opposite order from PostGIS's only when PostGIS's
  distances for them differ by less than TIE_M = 1 mm + 2e-6 m. The
  contract ranks by the distance rounded to the whole millimetre, then by
  name: two places in the same millimetre, less than 1 mm apart, may come in
  either distance order; the 2e-6 m is the two measures' agreement, at the
  edge of a millimetre. Pairs further apart than that must be in PostGIS's
  order. The check prints how many rows stand elsewhere than in PostGIS's
  ORDER BY distance, id, and the largest distance gap of a pair Stroll put
  the other way round.

The tie rule itself is checked where the data decides it, not from Stroll's
rule written again: places at the very same coordinates have the same
distance under any measure, so among them Stroll's order must be by name,
then id (Unicode scalar order, as Python compares strings).

The comparison is also run once against Stroll with two neighbouring rows
of one ranking swapped, 1.5 mm or more apart
(Tests/IntegrationTests/perturbed_stroll.py, `swap-rows`): it must fail.
`--self-test` runs only that (after loading the places).

Bad input: a wrong password, a wrong port, a missing table, a table name
that tries SQL injection, a missing column, a table in another SRID, a
database without PostGIS, polygons: each a clear error with its exit code
(or a counted skip), with no password in any output; the time each took is
printed, not asserted.

usage: check_postgis.py STROLL [--self-test]
"""
import collections
import concurrent.futures
import csv
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from pgcluster import Cluster  # noqa: E402
from perturbed_stroll import must_fail  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
STROLL = sys.argv[1] if len(sys.argv) > 1 else "stroll"
PASSWORD = "walk-in-liverpool-7f3a"
N = 100_000
WALK = os.path.join(ROOT, "traces", "pier-head-to-guild.gpx")
DISTANCE_FILTER = "50"
# Stroll's distances against PostGIS's, and the gap below which two places may be in either order
# (see above).
DISTANCE_M = 1e-6
TIE_M = 0.001 + 2e-6


def stroll(args, expect=0, env=None):
    started = time.monotonic()
    r = subprocess.run([STROLL, *args], capture_output=True, text=True, env=env)
    took = time.monotonic() - started
    assert r.returncode == expect, (args, r.returncode, r.stderr[-2000:])
    assert PASSWORD not in r.stdout and PASSWORD not in r.stderr, ("the password was printed", args)
    return r, took


def places(seed=327):
    rng = random.Random(seed)
    names = [f"Cafe {i}" for i in range(2000)] + ["Leaf", "Bean", "Costa Coffee", "Starbucks", "Ça va", "Zest"]
    rows = []
    for i in range(N):
        if i > 10 and rng.random() < 0.05:
            lat, lon = rows[rng.randrange(len(rows))][3:5]  # the same position as an earlier place
        else:
            lat, lon = 53.38 + rng.random() * 0.06, -3.02 + rng.random() * 0.10
        rows.append((f"p{i:06d}", rng.choice(names), rng.choice(["cafe", "theatre"]), lat, lon))
    return rows


def postgis_order(pg, lat, lon):
    """{group: [(id, distance)]} in PostGIS's own order: by ST_Distance on the spheroid (then id, so
    that the listing is fixed; equal distances may come in any order)."""
    started = time.monotonic()
    text = pg.psql("places", "-c", f"""COPY (
        SELECT kind, id, ST_Distance(geog, ST_SetSRID(ST_MakePoint({lon!r}, {lat!r}), 4326)::geography, true) AS d
        FROM places ORDER BY kind, d, id) TO STDOUT WITH (FORMAT csv)""")
    took = time.monotonic() - started
    order = {}
    for line in text.splitlines():
        kind, pid, d = line.split(",")
        order.setdefault(kind, []).append((pid, float(d)))
    return order, took


def compare_ranking(e, location, expected, names, same_position, stats):
    """One ranking event against PostGIS's order at its fix (see above)."""
    where = f"at t={e['t']} ({location['lat']}, {location['lon']}), {e['group']}"
    theirs = expected[e["group"]]
    distance = dict(theirs)
    order = e["order"]
    assert len(order) == len(theirs) and set(order) == set(distance), (where, "not the same places as PostGIS's", len(order), len(theirs))
    assert e["names"] == [names[pid] for pid in order], (where, "a name that is not its place's")
    worst = max(abs(d - distance[pid]) for pid, d in zip(order, e["distances"]))
    assert worst <= DISTANCE_M, (where, f"a distance {worst:.3e} m from PostGIS's")
    stats["worst distance"] = max(stats["worst distance"], worst)
    # A pair the other way round from PostGIS: a place after one PostGIS puts further away.
    farthest, farthest_id = -1.0, None
    for k, pid in enumerate(order):
        d = distance[pid]
        gap = farthest - d
        assert gap < TIE_M, (f"{where}: out of PostGIS's order: rows {order.index(farthest_id)} ({farthest_id}) and {k} ({pid}), "
                             f"{gap * 1000:.3f} mm apart in PostGIS's ST_Distance (only pairs within {TIE_M * 1000:.3f} mm may be either way)")
        stats["worst gap"] = max(stats["worst gap"], gap)
        if d > farthest:
            farthest, farthest_id = d, pid
    stats["elsewhere"] += sum(1 for a, (b, _) in zip(order, theirs) if a != b)
    # Places at one position: by name, then id.
    rank = {pid: k for k, pid in enumerate(order)}
    for ids in same_position.get(e["group"], []):
        listed = sorted(ids, key=rank.__getitem__)
        assert listed == sorted(ids, key=lambda pid: (names[pid], pid)), (where, "places at one position not by name, then id", listed)
        stats["tie sets"] += 1
    stats["rankings"] += 1
    stats["rows"] += len(order)


def check_walk(stroll_binary, pg, uri, env, rows, tmp, walk=WALK, least=40, quiet=False):
    """Stroll's ranking at every delivered fix of the walk against PostGIS's order (see above); at
    least `least` fixes (the bundled walk gives 48 at the 50 m filter)."""
    out = os.path.join(tmp, "walk.jsonl")
    started = time.monotonic()
    with open(out, "w") as f:
        r = subprocess.run([stroll_binary, "replay", walk, "--places", uri, "--distance-filter", DISTANCE_FILTER, "--format", "jsonl"],
                           stdout=f, stderr=subprocess.PIPE, text=True, env=env)
    took_stroll = time.monotonic() - started
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert PASSWORD not in r.stderr, "the password was printed"
    names = {pid: name for pid, name, _, _, _ in rows}
    # Places at the very same coordinates, per group: the data's own ties.
    at = {}
    for pid, _, kind, lat, lon in rows:
        at.setdefault((kind, lat, lon), []).append(pid)
    same_position = {}
    for (kind, _, _), ids in at.items():
        if len(ids) > 1:
            same_position.setdefault(kind, []).append(ids)
    stats = {"fixes": 0, "rankings": 0, "rows": 0, "elsewhere": 0, "worst gap": 0.0, "worst distance": 0.0, "tie sets": 0, "postgis s": 0.0}
    # PostGIS orders the next fixes' places while this one is compared (two queries ahead).
    with open(out) as f:
        fixes = [json.loads(line) for line in f if line.startswith('{"type":"location"')]
    assert fixes, "no location event"
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
    ahead = collections.deque(pool.submit(postgis_order, pg, x["lat"], x["lon"]) for x in fixes[:2])
    location, expected = None, None
    started = time.monotonic()
    try:
        with open(out) as f:
            for line in f:
                assert PASSWORD not in line, "the password was printed"
                e = json.loads(line)
                if e["type"] == "location":
                    assert e == fixes[stats["fixes"]], "the fixes changed between two readings"
                    location, expected = e, None
                    stats["fixes"] += 1
                    continue
                if e["type"] != "ranking":
                    continue
                if expected is None:
                    assert e["t"] == location["t"], ("a ranking without its location", e["t"], location["t"])
                    expected, took = ahead.popleft().result()
                    stats["postgis s"] += took
                    if stats["fixes"] + 1 < len(fixes):
                        x = fixes[stats["fixes"] + 1]
                        ahead.append(pool.submit(postgis_order, pg, x["lat"], x["lon"]))
                compare_ranking(e, location, expected, names, same_position, stats)
    finally:
        pool.shutdown(cancel_futures=True)
    took_compare = time.monotonic() - started
    assert stats["fixes"] >= least and stats["rankings"] == 2 * stats["fixes"], ("too few fixes compared", stats)
    assert stats["rows"] == stats["fixes"] * N, stats
    if not quiet:
        print(f"postgis: at all {stats['fixes']} delivered fixes of {os.path.basename(WALK)} (distance filter {DISTANCE_FILTER} m), "
              f"{stats['rankings']} rankings, {stats['rows']} rows: Stroll's order is PostGIS's ORDER BY ST_Distance(geog, point, true); "
              f"{stats['elsewhere']} rows stand elsewhere than in PostGIS's listing, the largest gap of a pair the other way round "
              f"{max(stats['worst gap'], 0) * 1000:.4f} mm (allowed {TIE_M * 1000:.3f} mm); distances within {stats['worst distance']:.1e} m "
              f"(allowed {DISTANCE_M:.0e}); the {stats['tie sets'] // stats['rankings']} sets of places at one position by name, then id, in every ranking; "
              f"stroll replay {took_stroll:.1f} s; PostGIS's queries {stats['postgis s']:.1f} s, two at a time beside the comparison, "
              f"which took {took_compare:.1f} s")
    return stats


SELF_TESTS = [
    # (perturbation, what the failure must say)
    ("swap-rows", "out of PostGIS's order"),
    ("drop-row", "not the same places as PostGIS's"),
    ("rename-row", "a name that is not its place's"),
]


def self_test(pg, uri, env, rows, tmp):
    """The comparison against a Stroll with two rows of one ranking swapped, a row dropped, a row
    renamed must fail, each for its reason. The walk is the first 3 points of the bundled one: the
    perturbation is in its first ranking."""
    with open(WALK) as f:
        points = re.findall(r"<trkpt .*?</trkpt>", f.read(), re.S)[:3]
    assert len(points) == 3, WALK
    short = os.path.join(tmp, "short.gpx")
    with open(short, "w") as f:
        f.write('<?xml version="1.0"?><gpx version="1.1" creator="check_postgis"><trk><trkseg>\n' + "\n".join(points) + "\n</trkseg></trk></gpx>\n")
    must_fail(STROLL, SELF_TESTS, lambda wrapper: check_walk(wrapper, pg, uri, env, rows, tmp, walk=short, least=1, quiet=True),
              tmp, "postgis")


def main():
    only_self_test = "--self-test" in sys.argv[2:]
    env = dict(os.environ)
    env["PGPASSWORD"] = PASSWORD
    with Cluster() as pg, tempfile.TemporaryDirectory() as tmp:
        pg.sql("postgres", f"CREATE ROLE reader LOGIN PASSWORD '{PASSWORD}'")
        pg.sql("postgres", "CREATE DATABASE places OWNER reader")
        pg.sql("postgres", "CREATE DATABASE plain OWNER reader")
        pg.sql("places", "CREATE EXTENSION postgis")
        pg.sql("places", "CREATE TABLE places (id text PRIMARY KEY, name text NOT NULL, kind text NOT NULL, geog geography(Point, 4326) NOT NULL)")
        rows = places()
        with open(os.path.join(tmp, "places.csv"), "w", newline="") as f:
            csv.writer(f).writerows((i, n, k, f"SRID=4326;POINT({lon!r} {lat!r})") for i, n, k, lat, lon in rows)
        started = time.monotonic()
        pg.psql("places", "-c", f"\\copy places FROM '{os.path.join(tmp, 'places.csv')}' WITH (FORMAT csv)")
        print(f"postgis: {N} places loaded with \\copy in {time.monotonic() - started:.1f} s")
        pg.sql("places", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader; ANALYZE places")

        uri = pg.uri("reader", "places", table="places", geometry="geog", group="kind", sslmode="disable")
        if only_self_test:
            self_test(pg, uri, env, rows, tmp)
            return
        # Reading: every place, exactly, with the password from PGPASSWORD.
        out = os.path.join(tmp, "read.json")
        (r, took) = stroll(["places", "convert", uri, out], env=env)
        with open(out) as f:
            read = json.load(f)
        assert [(p["id"], p["name"], p["group"], p["latitude"], p["longitude"]) for p in read] == sorted(rows), "the places read differ"
        print(f"postgis: stroll read all {N} places exactly (ids, names, groups, coordinates) in {took:.2f} s")

        # Reading beside psql's \\copy of the same rows, in turns, seven times each: both a new process
        # that connects over TCP with the password and reads every row (psql writes them to /dev/null,
        # Stroll checks and counts them as places). Each is also run on a table of one row, so that
        # what is compared is the reading, not starting a process and logging in (a Swift binary
        # loads Foundation; psql is a small C program). Stroll reads as COPY ... TO STDOUT too (in the
        # binary format). The times are printed (medians, the fastest beside them), not asserted: on
        # a machine busy with other work they say more about the machine than about the reader.
        pg.sql("places", "CREATE TABLE one AS SELECT * FROM places ORDER BY id LIMIT 1; GRANT SELECT ON one TO reader")
        uri_one = pg.uri("reader", "places", table="one", geometry="geog", group="kind", sslmode="disable")

        def psql_copy(table):
            return ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(pg.port), "-U", "reader", "-d", "places", "-c",
                    f"\\copy (SELECT id::text, name::text, kind::text, ST_X(geog::geometry), ST_Y(geog::geometry) FROM {table} ORDER BY id) TO '/dev/null'"]

        def timed(args):
            started = time.monotonic()
            subprocess.run(args, check=True, env=env, capture_output=True)
            return time.monotonic() - started

        timings = {k: [] for k in ("stroll", "stroll one row", "psql", "psql one row")}
        for _ in range(7):
            r, t = stroll(["places", "info", uri, "--json"], env=env)
            assert json.loads(r.stdout)["count"] == N, r.stdout
            timings["stroll"].append(t)
            timings["stroll one row"].append(timed([STROLL, "places", "info", uri_one, "--json"]))
            timings["psql"].append(timed(psql_copy("places")))
            timings["psql one row"].append(timed(psql_copy("one")))
        best = {k: min(v) for k, v in timings.items()}
        median = {k: sorted(v)[len(v) // 2] for k, v in timings.items()}
        reading = {tool: (best[tool] - best[tool + " one row"], median[tool] - median[tool + " one row"]) for tool in ("stroll", "psql")}
        print(f"postgis: reading {N} places, beyond a one-row table, median (fastest) of {len(timings['psql'])}: stroll places info "
              f"{reading['stroll'][1]:.3f} s ({reading['stroll'][0]:.3f}), psql \\copy {reading['psql'][1]:.3f} s ({reading['psql'][0]:.3f}); "
              f"whole commands stroll {median['stroll']:.3f} s, psql {median['psql']:.3f} s (measured, not asserted)")

        # The password from a .pgpass file instead, as libpq would find it.
        pgpass = os.path.join(tmp, "pgpass")
        with open(pgpass, "w") as f:
            f.write(f"127.0.0.1:{pg.port}:places:reader:{PASSWORD}\n")
        os.chmod(pgpass, 0o600)
        env_file = {k: v for k, v in os.environ.items() if k != "PGPASSWORD"}
        env_file["PGPASSFILE"] = pgpass
        r, _ = stroll(["places", "info", uri, "--json"], env=env_file)
        info = json.loads(r.stdout)
        assert info["count"] == N and set(info["groups"]) == {"cafe", "theatre"}, info
        print("postgis: the password from a .pgpass file (PGPASSFILE) works too")

        check_walk(STROLL, pg, uri, env, rows, tmp)
        self_test(pg, uri, env, rows, tmp)

        # --places-sql: the user's own query.
        r, _ = stroll(["places", "info", pg.uri("reader", "places", sslmode="disable"), "--json", "--places-sql",
                       "SELECT id, name, kind, geog FROM places WHERE kind = 'cafe' AND name LIKE 'Cafe 1%'"], env=env)
        expected = sum(1 for row in rows if row[2] == "cafe" and row[1].startswith("Cafe 1"))
        assert json.loads(r.stdout)["count"] == expected, r.stdout
        print(f"postgis: --places-sql reads the query's {expected} rows")

        # Bad input.
        pg.sql("places", "CREATE TABLE mercator (id int, name text, geom geometry(Point, 3857)); INSERT INTO mercator VALUES (1, 'x', ST_SetSRID(ST_MakePoint(-331000, 7050000), 3857))")
        pg.sql("places", "CREATE TABLE shapes (id int, name text, geom geometry(Geometry, 4326)); "
                         "INSERT INTO shapes VALUES (1, 'a point', 'SRID=4326;POINT(-2.97 53.40)'), (2, 'a park', 'SRID=4326;POLYGON((-2.97 53.40, -2.96 53.40, -2.96 53.41, -2.97 53.40))'), (3, 'nothing', NULL), (4, 'empty', 'SRID=4326;POINT EMPTY')")
        pg.sql("places", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
        port_unused = __import__("pgcluster").free_port()
        cases = [
            ("a wrong password", pg.uri("reader", "places", table="places", sslmode="disable"), dict(env, PGPASSWORD="wrong-" + PASSWORD[::-1]), 66, "password authentication failed"),
            ("a wrong port", f"postgresql://reader@127.0.0.1:{port_unused}/places?table=places&sslmode=disable", env, 66, "cannot connect to 127.0.0.1"),
            ("a missing table", pg.uri("reader", "places", table="cafes", sslmode="disable"), env, 66, "no table cafes"),
            ("SQL injection in the table", pg.uri("reader", "places", table="places%3B%20DROP%20TABLE%20places%3B%20--", sslmode="disable"), env, 66, "no table places; DROP TABLE places; --"),
            ("a missing column", pg.uri("reader", "places", table="places", name="nope", sslmode="disable"), env, 65, "no column \"nope\""),
            ("another SRID", pg.uri("reader", "places", table="mercator", sslmode="disable"), env, 65, "SRID 3857 (EPSG:3857"),
            ("no PostGIS", pg.uri("reader", "plain", table="places", sslmode="disable"), env, 65, "PostGIS is not installed"),
            ("TLS required by a server without it", pg.uri("reader", "places", table="places", sslmode="require"), env, 66, "server does not support SSL, but SSL was required"),
            ("a password in the URI", f"postgresql://reader:{PASSWORD}x@127.0.0.1:{pg.port}/places?table=places&sslmode=disable", env, 66, "password authentication failed"),
        ]
        for what, source, case_env, code, message in cases:
            r, took = stroll(["places", "info", source, "--json"], expect=code, env=case_env)
            assert message in r.stderr, (what, r.stderr)
            print(f"postgis: {what}: exit {code} in {took:.1f} s: {r.stderr.strip().splitlines()[-1][:150]}")
        assert pg.sql("places", "SELECT count(*) FROM places").strip() == str(N), "the table is gone"
        r, _ = stroll(["places", "info", pg.uri("reader", "places", table="shapes", sslmode="disable"), "--json"], env=env)
        info = json.loads(r.stdout)
        assert info["count"] == 1 and sorted(s["reason"] for s in info["skipped"]) == ["a POLYGON, not a point", "an empty point", "no geometry (NULL)"], info
        print("postgis: a polygon, a NULL and an empty geometry skipped with their reasons, the point read")


if __name__ == "__main__":
    main()
