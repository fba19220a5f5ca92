#!/usr/bin/env python3
"""`stroll geocode --addresses postgresql://…` against make test-geocode's oracle.

On a throwaway cluster (pgcluster.py), GDAL's ogr2ogr (Debian's gdal-bin)
writes the Monaco extract's points layer (its nodes, their `addr:*` tags in
GDAL's `other_tags`) into a PostGIS table, and Stroll reads it back as an
address source over TCP with a password. The answers are held to the same
oracle as the GeoPackage source in check_geocode.py (pyosmium's reading of
the extract, GeographicLib's nearest address, the forward matching rule
written again): 300 reverse lookups and every numbered address looked up
forward, each placemark field by field. Then the sources that cannot be
read say why: a table without a street column (exit 64), a missing table
(66), a table of polygons (every row a rejection, exit 65); the password
never printed.

usage: check_postgis_addresses.py STROLL
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "geocode"))
from pgcluster import Cluster  # noqa: E402
import check_geocode as oracle  # noqa: E402

PASSWORD = "addresses-in-monaco-51c2"


def refused(stroll, uri, code, reason):
    r = subprocess.run([stroll, "geocode", "--addresses", uri, "--reverse", "43.7384,7.4246", "--json"], capture_output=True, text=True)
    assert r.returncode == code, f"{uri}: exit {r.returncode}, not {code}: {r.stderr[:300]}"
    assert reason in r.stderr, f"{uri}: the error does not say \"{reason}\": {r.stderr[:300]}"
    assert PASSWORD not in r.stdout + r.stderr, f"{uri}: the password was printed"
    print(f"check_postgis_addresses: {uri.split('?')[1]}: exit {code}: {r.stderr.strip()[:160]}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    stroll = sys.argv[1]
    started = time.time()
    osm = oracle.extract()
    reader = oracle.Addresses()
    reader.apply_file(osm, locations=True)
    nodes = [a for a in reader.found if a["kind"] == 0]
    with Cluster() as pg:
        pg.sql("postgres", f"CREATE ROLE reader LOGIN PASSWORD '{PASSWORD}'")
        pg.sql("postgres", "CREATE DATABASE addresses OWNER reader")
        pg.sql("addresses", "CREATE EXTENSION postgis")
        subprocess.run(["ogr2ogr", "-q", "-f", "PostgreSQL", f"PG:host={pg.socket} port={pg.port} user={pg.ADMIN} dbname=addresses",
                        osm, "points", "-nln", "monaco_points"], check=True)
        rows = int(pg.sql("addresses", "SELECT count(*) FROM monaco_points").strip())
        pg.sql("addresses", "CREATE TABLE no_street AS SELECT ogc_fid, name, wkb_geometry FROM monaco_points")
        pg.sql("addresses", "CREATE TABLE squares AS SELECT ogc_fid, 'Rue Grimaldi'::text AS street, "
                            "ST_Buffer(wkb_geometry, 0.0001)::geometry(Polygon, 4326) AS geom FROM monaco_points LIMIT 3")
        pg.sql("addresses", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
        os.environ["PGPASSWORD"] = PASSWORD
        uri = pg.uri("reader", "addresses", table="monaco_points")
        stats = oracle.compare(stroll, uri, nodes, option="--addresses")
        print(f"check_postgis_addresses: ogr2ogr's points layer in PostGIS ({rows} rows), through --addresses {uri}: "
              f"{stats['addresses']} node addresses; reverse: {stats['found']} points with the nearest node address within "
              f"{oracle.RADIUS_M:g} m, {stats['empty']} with none; forward: {stats['queries']} queries, {stats['results']} placemarks, "
              f"each equal to the oracle's")
        refused(stroll, pg.uri("reader", "addresses", table="no_street"), 64, "has no street column")
        refused(stroll, pg.uri("reader", "addresses", table="nowhere"), 66, "no table nowhere")
        refused(stroll, pg.uri("reader", "addresses", table="squares"), 65, "a POLYGON, not a point")
    print(f"check_postgis_addresses: ok ({time.time() - started:.1f} s)")


if __name__ == "__main__":
    main()
