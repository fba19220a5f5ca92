#!/usr/bin/env python3
"""Stroll beside PostGIS on the proximity workload of `stroll bench`, in one
run, on one machine.

The 1 000 000 places of `stroll bench --places 1000000` (`--dump-places`) go
into a throwaway PostGIS cluster (Tests/IntegrationTests/postgis/pgcluster.py) as
geography(Point, 4326) with a GiST index; the walker positions are the
delivered fixes of the bundled walk, as `stroll bench` walks them.

- top 20: `stroll bench --variant topk` (p50 per update) beside PostGIS's
  index-assisted KNN, `ORDER BY geog <-> point LIMIT 20`, timed server-side
  (`EXPLAIN (ANALYZE)`'s execution time, median over the positions, the
  plan checked to use the index), and the same on a planar geometry column
  (`geom <-> point`, PostGIS's fastest KNN, in degrees rather than metres);
- full order: `stroll bench --variant full` (the exact order of all places,
  one thread and all cores) beside `ORDER BY ST_Distance(geog, point, true)`
  (Karney on the ellipsoid, as Stroll), server-side, median over 5 positions;
- reading the million places: from PostGIS (`stroll places info URI`) beside
  `psql \\copy (SELECT id, lat, lon ...) TO file`; from a GeoPackage beside
  `ogr2ogr` to CSV; from an .osm.pbf of the same places as nodes (written with
  pyosmium) beside `osmium tags-filter` + `osmium export`. Wall-clock, best of 3.

usage: postgis_peers.py STROLL  (pyosmium importable)
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "IntegrationTests", "postgis"))
from pgcluster import Cluster  # noqa: E402

STROLL = sys.argv[1]
N = 1_000_000


def run(args, env=None):
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    return r.stdout


def best_of(args, times=3, env=None):
    best = float("inf")
    for _ in range(times):
        started = time.monotonic()
        run(args, env=env)
        best = min(best, time.monotonic() - started)
    return best


def bench(variant, threads=None, dump=None):
    args = [STROLL, "bench", "--places", str(N), "--variant", variant, "--json"]
    if threads:
        args += ["--threads", str(threads)]
    if dump:
        args += ["--dump-places", dump]
    return json.loads(run(args))


def execution_ms(pg, db, query, index=None):
    plan = json.loads(pg.sql(db, f"EXPLAIN (ANALYZE, FORMAT JSON) {query}"))
    if index:
        assert index in json.dumps(plan), ("the KNN query does not use its index", query, plan)
    return plan[0]["Execution Time"]


def write_pbf(rows, path):
    import osmium
    writer = osmium.SimpleWriter(path)
    for k, (pid, lat, lon) in enumerate(rows):
        writer.add_node(osmium.osm.mutable.Node(id=k + 1, location=(lon, lat), tags={"amenity": "cafe", "name": pid}))
    writer.close()


def main():
    with tempfile.TemporaryDirectory() as tmp, Cluster() as pg:
        t = lambda name: os.path.join(tmp, name)
        topk = bench("topk", dump=t("places.csv"))
        full1 = bench("full", threads=1)
        full = bench("full")
        with open(t("places.csv")) as f:
            reader = csv.reader(f)
            header = next(reader)
            assert header[:3] == ["id", "latitude", "longitude"], header
            rows = [(r[0], float(r[1]), float(r[2])) for r in reader]
        assert len(rows) == N
        walk = [json.loads(line) for line in run([STROLL, "replay", "--format", "jsonl"]).splitlines()]
        positions = [(e["lat"], e["lon"]) for e in walk if e["type"] == "location"]

        pg.sql("postgres", "CREATE ROLE reader LOGIN PASSWORD 'bench'")
        pg.sql("postgres", "CREATE DATABASE bench OWNER reader")
        pg.sql("bench", "CREATE EXTENSION postgis")
        pg.sql("bench", "CREATE TABLE places (id text PRIMARY KEY, name text, geog geography(Point, 4326))")
        with open(t("load.csv"), "w", newline="") as f:
            csv.writer(f).writerows((pid, pid, f"SRID=4326;POINT({lon!r} {lat!r})") for pid, lat, lon in rows)
        started = time.monotonic()
        pg.psql("bench", "-c", f"\\copy places FROM '{t('load.csv')}' WITH (FORMAT csv)")
        load_s = time.monotonic() - started
        started = time.monotonic()
        pg.sql("bench", "CREATE INDEX places_geog ON places USING gist (geog)")
        # The same points as planar geometry too: PostGIS's fastest KNN (in degrees, not metres).
        pg.sql("bench", "ALTER TABLE places ADD COLUMN geom geometry(Point, 4326)")
        pg.sql("bench", "UPDATE places SET geom = geog::geometry")
        pg.sql("bench", "CREATE INDEX places_geom ON places USING gist (geom)")
        pg.sql("bench", "VACUUM ANALYZE places")
        pg.sql("bench", "GRANT SELECT ON places TO reader")
        index_s = time.monotonic() - started

        def point(lat, lon):
            return f"ST_SetSRID(ST_MakePoint({lon!r}, {lat!r}), 4326)::geography"

        # Warm the cache once, then time.
        execution_ms(pg, "bench", f"SELECT id FROM places ORDER BY geog <-> {point(*positions[0])} LIMIT 20")
        knn = [execution_ms(pg, "bench", f"SELECT id FROM places ORDER BY geog <-> {point(lat, lon)} LIMIT 20", "places_geog")
               for lat, lon in positions]
        planar = [execution_ms(pg, "bench", f"SELECT id FROM places ORDER BY geom <-> ST_SetSRID(ST_MakePoint({lon!r}, {lat!r}), 4326) LIMIT 20",
                               "places_geom") for lat, lon in positions]
        planar_us = statistics.median(planar) * 1000
        exact = [execution_ms(pg, "bench", f"SELECT id FROM places ORDER BY ST_Distance(geog, {point(lat, lon)}, true), name, id")
                 for lat, lon in positions[:5]]
        knn_us = statistics.median(knn) * 1000
        exact_us = statistics.median(exact) * 1000

        # Reading a million places.
        env = dict(os.environ, PGPASSWORD="bench")
        uri = pg.uri("reader", "bench", table="places", geometry="geog", sslmode="disable")
        read_postgis = best_of([STROLL, "places", "info", uri, "--json"], env=env)
        copy_postgis = best_of(["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(pg.port), "-U", "reader", "-d", "bench", "-c",
                                f"\\copy (SELECT id, name, ST_Y(geog::geometry), ST_X(geog::geometry) FROM places) TO '{t('copy.csv')}' WITH (FORMAT csv)"],
                               env=env)
        with open(t("named.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "name", "latitude", "longitude", "group"])
            w.writerows((pid, pid, repr(lat), repr(lon), "bench") for pid, lat, lon in rows)
        run([STROLL, "places", "convert", t("named.csv"), t("places.gpkg")])
        read_gpkg = best_of([STROLL, "places", "info", t("places.gpkg"), "--json"])
        ogr_gpkg = best_of(["ogr2ogr", "-f", "CSV", "/vsistdout/", t("places.gpkg"), "-lco", "GEOMETRY=AS_XY"])
        write_pbf(rows, t("places.osm.pbf"))
        read_pbf = best_of([STROLL, "places", "info", t("places.osm.pbf"), "--osm-filter", "amenity=cafe", "--json"])

        def osmium_pipeline():
            run(["osmium", "tags-filter", "--overwrite", "-o", t("filtered.osm.pbf"), t("places.osm.pbf"), "n/amenity=cafe"])
            run(["osmium", "export", "--overwrite", "-f", "geojsonseq", "-o", t("export.geojsonseq"), t("filtered.osm.pbf")])
        best = float("inf")
        for _ in range(3):
            started = time.monotonic()
            osmium_pipeline()
            best = min(best, time.monotonic() - started)
        osmium_s = best

        machine = run(["uname", "-srm"]).strip()
        cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
        version = pg.sql("bench", "SELECT postgis_lib_version() || ', PostgreSQL ' || current_setting('server_version')").strip()
        print(f"Machine: {os.cpu_count()} cores, {cpu}, {machine}; PostGIS {version}")
        print(f"PostGIS load: \\copy of {N} places {load_s:.1f} s, GiST index and ANALYZE {index_s:.1f} s; "
              f"{len(positions)} walker positions (5 for the full order)")
        print()
        print("| query, 1 000 000 places | Stroll p50 | PostGIS median (server-side) | Stroll faster |")
        print("|---|---:|---:|---:|")
        print(f"| top 20 nearest (`stroll bench --variant topk` / `ORDER BY geog <-> point LIMIT 20`, GiST) | {topk['p50_us']:.1f} µs | {knn_us:.1f} µs | {knn_us / topk['p50_us']:.0f}x |")
        print(f"| top 20 nearest, planar (`ORDER BY geom <-> point LIMIT 20` on geometry in degrees, GiST; not metres) | {topk['p50_us']:.1f} µs | {planar_us:.1f} µs | {planar_us / topk['p50_us']:.0f}x |")
        print(f"| full exact order, 1 thread (`--variant full --threads 1` / `ORDER BY ST_Distance(geog, point, true), name, id`) | {full1['p50_us'] / 1000:.1f} ms | {exact_us / 1000:.1f} ms | {exact_us / full1['p50_us']:.0f}x |")
        print(f"| full exact order, {full['threads']} threads | {full['p50_us'] / 1000:.1f} ms | {exact_us / 1000:.1f} ms | {exact_us / full['p50_us']:.0f}x |")
        print()
        print("| reading 1 000 000 places (best of 3, wall clock) | Stroll | peer | peer tool |")
        print("|---|---:|---:|---|")
        print(f"| from PostGIS | {read_postgis:.2f} s | {copy_postgis:.2f} s | `psql \\copy (SELECT id, name, lat, lon) TO file` |")
        print(f"| from a GeoPackage | {read_gpkg:.2f} s | {ogr_gpkg:.2f} s | `ogr2ogr -f CSV` |")
        print(f"| from an .osm.pbf (1 000 000 tagged nodes) | {read_pbf:.2f} s | {osmium_s:.2f} s | `osmium tags-filter` + `osmium export` |")


if __name__ == "__main__":
    main()
