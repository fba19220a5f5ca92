#!/usr/bin/env python3
"""Stroll with one thing wrong in its output, to show a check failing on it.

    perturbed_stroll.py STROLL MODE ARGS...

runs `STROLL ARGS...` and changes its result by MODE:

- `drop-place` (`places convert IN OUT`): the first place of OUT that is
  not a node (else the first) removed, and a made-up `warning:` line naming
  it (a missing-nodes reason), as a reader that lost a place and blamed the
  extract would print.
- `rename-place` (`places convert`): two places with different names swap
  names.
- `move-centroid` (`places convert`): the first place that is not a node
  (else the first) moved 1e-7 degrees north (11 mm).
- `swap-rows` (`replay --format jsonl`): in the first ranking event, the two
  neighbouring rows (id, name and distance together) whose distances differ
  least while differing by more than 1.5 mm swap places.
- `drop-row` (`replay --format jsonl`): the last row of the first ranking
  event removed.
- `rename-row` (`replay --format jsonl`): the first row of the first ranking
  event given the next different name in that ranking.
- `move-gpkg-point` (`places convert IN OUT.gpkg`): the first feature of the
  GeoPackage's first feature table moved 1e-7 degrees north (11 mm), in the
  point's WKB (the envelope in the header is left as it was).
- `geocode-other-address` (`geocode --reverse - --json`): the first
  non-empty answer replaced by the next different one.
- `geocode-drop-result` (`geocode - --json`): the last placemark of the
  first non-empty answer removed.
- `geocode-rename-street` (`geocode - --json`): the first placemark's
  thoroughfare given " Nord" at its end.

- `route-longer` (`route --json`): `distance_m` made 0.2 % longer.
- `route-drop-node` (`route --json`): the middle node of `nodes` removed.
- `route-miss-crossing` (`route --json`): one crossing fewer in the first
  route that passes one.
- `replay-off-route` (`replay --format jsonl`): the tenth location event
  moved 2e-5 degrees north (2.2 m).
- `search-drop-result` (`search --json`): the middle result removed.
- `search-swap-results` (`search --json`): the first two neighbouring
  results with different distances (or names) swap places.

Stroll's exit code, and its output otherwise, are kept.

The checks import `must_fail` from here: it runs a check against each
perturbation and passes only when each fails it for its own reason.
"""
import json
import os
import shlex
import sqlite3
import struct
import subprocess
import sys


def wrapper(stroll, mode, folder):
    """An executable in `folder` that runs `stroll` with `mode`'s perturbation."""
    path = os.path.join(folder, f"stroll-{mode}")
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(os.path.abspath(__file__))} "
                f"{shlex.quote(os.path.abspath(stroll))} {mode} \"$@\"\n")
    os.chmod(path, 0o755)
    return path


def must_fail(stroll, cases, check, folder, label):
    """check(executable) against each perturbation in cases [(mode, what its failure must say)] must
    raise an AssertionError saying that."""
    for mode, message in cases:
        try:
            check(wrapper(stroll, mode, folder))
        except AssertionError as e:
            text = str(e)
            assert message in text, (mode, "failed, but not for the perturbation", text[:500])
            print(f"{label}: self-test: a stroll with {mode} fails the check: {text[:300]}")
        else:
            raise AssertionError(f"self-test: a stroll with {mode} passed the check")


def places_convert(stroll, mode, args):
    r = subprocess.run([stroll, *args], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.returncode != 0 or args[:2] != ["places", "convert"]:
        return r.returncode
    source, out = args[2], args[3]
    with open(out) as f:
        places = json.load(f)
    if mode == "drop-place":
        gone = next((p for p in places if not p["id"].startswith("node/")), places[0])
        places.remove(gone)
        sys.stderr.write(f"warning: {source}: {gone['id']}: 1 of its 5 nodes are not in the extract\n")
    elif mode == "rename-place":
        a = places[0]
        b = next(p for p in places if p["name"] != a["name"])
        a["name"], b["name"] = b["name"], a["name"]
    elif mode == "move-centroid":
        p = next((p for p in places if not p["id"].startswith("node/")), places[0])
        p["latitude"] += 1e-7
    with open(out, "w") as f:
        json.dump(places, f)
    return 0


def ranking(stroll, mode, args):
    child = subprocess.Popen([stroll, *args], stdout=subprocess.PIPE, text=True)
    done = False
    for line in child.stdout:
        if not done and '"type":"ranking"' in line and mode != "swap-rows":
            e = json.loads(line)
            if mode == "drop-row":
                for field in ("order", "names", "distances"):
                    e[field].pop()
            elif mode == "rename-row":
                e["names"][0] = next(n for n in e["names"] if n != e["names"][0])
            line = json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"
            done = True
        if not done and '"type":"ranking"' in line:
            e = json.loads(line)
            d = e["distances"]
            gaps = [(d[k + 1] - d[k], k) for k in range(len(d) - 1) if d[k + 1] - d[k] > 0.0015]
            if gaps:
                _, k = min(gaps)
                sys.stderr.write(f"perturbed_stroll: swapped rows {k} and {k + 1} ({e['order'][k]} at {d[k]:.4f} m, "
                                 f"{e['order'][k + 1]} at {d[k + 1]:.4f} m) of the ranking at t={e['t']} ({e['group']})\n")
                for field in ("order", "names", "distances"):
                    e[field][k], e[field][k + 1] = e[field][k + 1], e[field][k]
                line = json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"
                done = True
        sys.stdout.write(line)
    return child.wait()


def move_gpkg_point(stroll, args):
    r = subprocess.run([stroll, *args], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    out = args[3] if args[:2] == ["places", "convert"] and len(args) > 3 else ""
    if r.returncode != 0 or not out.split("#")[0].endswith(".gpkg"):
        return r.returncode
    db = sqlite3.connect(out.split("#")[0])
    table, column = db.execute("SELECT c.table_name, g.column_name FROM gpkg_contents c JOIN gpkg_geometry_columns g "
                               "ON g.table_name = c.table_name WHERE c.data_type = 'features' LIMIT 1").fetchone()
    rowid, blob = db.execute(f'SELECT rowid, "{column}" FROM "{table}" ORDER BY rowid LIMIT 1').fetchone()
    # GeoPackage binary: 'GP', version, flags (bits 1-3: the envelope's kind), SRS id, envelope, then WKB.
    envelope = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}[(blob[3] >> 1) & 7]
    wkb = 8 + envelope
    order = "<" if blob[wkb] == 1 else ">"
    kind, x, y = struct.unpack_from(order + "Idd", blob, wkb + 1)
    assert kind == 1, f"perturbed_stroll: the first feature of {table} is not a point (WKB type {kind})"
    moved = bytearray(blob)
    struct.pack_into(order + "d", moved, wkb + 13, y + 1e-7)
    db.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (bytes(moved), rowid))
    db.commit()
    db.close()
    sys.stderr.write(f"perturbed_stroll: moved the first point of {table} from latitude {y} to {y + 1e-7}\n")
    return 0


def route(stroll, mode, args):
    r = subprocess.run([stroll, *args], capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    if r.returncode != 0 or "--json" not in args:
        sys.stdout.write(r.stdout)
        return r.returncode
    # One answer a line (`stroll route -` answers a pair a line): the first route that can be is changed.
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    for answer in answers:
        if "error" in answer:
            continue
        if mode == "route-longer":
            answer["distance_m"] *= 1.002
            break
        if mode == "route-miss-crossing":
            if answer.get("crossings", 0) > 0:
                answer["crossings"] -= 1
                break
            continue
        if len(answer["nodes"]) >= 3:
            dropped = answer["nodes"].pop(len(answer["nodes"]) // 2)
            sys.stderr.write(f"perturbed_stroll: dropped node {dropped}\n")
            break
    sys.stdout.write("".join(json.dumps(a) + "\n" for a in answers))
    return 0


def off_route(stroll, args):
    child = subprocess.Popen([stroll, *args], stdout=subprocess.PIPE, text=True)
    seen = 0
    for line in child.stdout:
        if '"type":"location"' in line:
            seen += 1
            if seen == 10:
                e = json.loads(line)
                e["lat"] += 2e-5
                line = json.dumps(e, separators=(",", ":")) + "\n"
                sys.stderr.write(f"perturbed_stroll: moved the location at t={e['t']} 2e-5 degrees north\n")
        sys.stdout.write(line)
    return child.wait()


def geocode(stroll, mode, args):
    r = subprocess.run([stroll, *args], capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    batch = "-" in args and "--json" in args and (mode == "geocode-other-address") == ("--reverse" in args)
    if r.returncode != 0 or not batch:
        sys.stdout.write(r.stdout)
        return r.returncode
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    first = next(i for i, a in enumerate(answers) if a)
    if mode == "geocode-other-address":
        answers[first] = next(a for a in answers[first + 1:] if a and a[0]["osm"] != answers[first][0]["osm"])
    elif mode == "geocode-drop-result":
        answers[first] = answers[first][:-1]
    else:
        answers[first][0]["thoroughfare"] += " Nord"
    sys.stdout.write("".join(json.dumps(a, ensure_ascii=False, separators=(",", ":")) + "\n" for a in answers))
    return 0


def search(stroll, mode, args):
    r = subprocess.run([stroll, *args], capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    if r.returncode != 0 or "--json" not in args:
        sys.stdout.write(r.stdout)
        return r.returncode
    found = json.loads(r.stdout)
    if mode == "search-drop-result" and found:
        gone = found.pop(len(found) // 2)
        sys.stderr.write(f"perturbed_stroll: dropped {gone['osm']}\n")
    elif mode == "search-swap-results":
        k = next((k for k in range(len(found) - 1)
                  if (found[k]["distance_m"], found[k]["name"]) != (found[k + 1]["distance_m"], found[k + 1]["name"])), None)
        if k is not None:
            found[k], found[k + 1] = found[k + 1], found[k]
            sys.stderr.write(f"perturbed_stroll: swapped {found[k]['osm']} and {found[k + 1]['osm']}\n")
    sys.stdout.write(json.dumps(found, ensure_ascii=False) + "\n")
    return 0


def main():
    stroll, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode in ("search-drop-result", "search-swap-results"):
        sys.exit(search(stroll, mode, args))
    if mode == "replay-off-route":
        sys.exit(off_route(stroll, args))
    if mode in ("route-longer", "route-drop-node", "route-miss-crossing"):
        sys.exit(route(stroll, mode, args))
    if mode.startswith("geocode-"):
        sys.exit(geocode(stroll, mode, args))
    if mode in ("swap-rows", "drop-row", "rename-row"):
        sys.exit(ranking(stroll, mode, args))
    if mode == "move-gpkg-point":
        sys.exit(move_gpkg_point(stroll, args))
    sys.exit(places_convert(stroll, mode, args))


if __name__ == "__main__":
    main()
