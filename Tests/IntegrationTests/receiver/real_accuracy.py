#!/usr/bin/env python3
"""The horizontal accuracy real devices reported, beside what Stroll's receiver presets report.

For each real trace in Fixtures/real-traces that carries a reported accuracy
(or the same files in a directory given with --traces) it prints a markdown row:
fixes, median, 90th percentile, min and max of the reported horizontal accuracy
(metres), the median interval between fixes (seconds), the fraction of
consecutive fixes whose reported accuracy differs, and the median run length of
equal values (in fixes). With --stroll BINARY it also replays Stroll's bundled
walk for each environment preset,

    BINARY replay traces/lime-street-to-campus.gpx --environment NAME --noise gauss-markov
           --warm-up none --distance-filter none --seed 7 --format jsonl

and adds a row of the same figures over its `location` events (`t` and
`horizontalAccuracy`). A replay that fails is a row saying so, not an abort.

usage (from the repository root):
    python3 Tests/IntegrationTests/receiver/real_accuracy.py [--traces DIR] [--stroll PATH_TO_STROLL]
"""
import argparse
import csv
import json
import os
import subprocess
import xml.etree.ElementTree as ET
from datetime import datetime, timezone

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TRACES = [
    ("togeojson/apple_watch_route.gpx", "gpx"),
    ("togeojson/Friday-Evening-Run.gpx", "gpx"),
    ("trackintel/google_trajectory.csv", "csv"),
]
PRESETS = ["open-sky", "urban", "urban-canyon", "indoor"]
WALK = "traces/lime-street-to-campus.gpx"


def seconds(text):
    """ISO 8601 time to seconds since 1970 (a time without a zone is UTC)."""
    t = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).timestamp()


def local(tag):
    return tag.rsplit("}", 1)[-1]


def read_gpx(path):
    """(time, hAcc or None) per trkpt, in file order; hAcc from any extension element so named."""
    fixes = []
    for el in ET.parse(path).iter():
        if local(el.tag) != "trkpt":
            continue
        time = acc = None
        for child in el.iter():
            if local(child.tag) == "time" and child.text:
                time = seconds(child.text)
            elif local(child.tag) == "hAcc" and child.text:
                acc = float(child.text)
        if time is not None:
            fixes.append((time, acc))
    return fixes


def read_csv(path):
    """(time, accuracy) per row of a semicolon CSV with tracked_at and accuracy columns."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        return [(seconds(row["tracked_at"]), float(row["accuracy"]) if row.get("accuracy") else None)
                for row in csv.DictReader(f, delimiter=";")]


def read_stroll(binary, preset):
    """(t, horizontalAccuracy) of the location events of one replay, or an error string."""
    args = [binary, "replay", WALK, "--environment", preset, "--noise", "gauss-markov",
            "--warm-up", "none", "--distance-filter", "none", "--seed", "7", "--format", "jsonl"]
    try:
        run = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"could not run: {e}"
    if run.returncode != 0:
        first = (run.stderr.strip().splitlines() or ["no message"])[0]
        return f"exit {run.returncode}: {first}"
    fixes = []
    for line in run.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "location" and "horizontalAccuracy" in event:
            time = float(event["t"]) if "t" in event else seconds(event["timestamp"])
            fixes.append((time, float(event["horizontalAccuracy"])))
    return fixes or "no location events"


def summary(fixes):
    """The row's figures; accuracy figures are None when no fix reports an accuracy."""
    fixes = sorted(fixes, key=lambda f: f[0])   # time order (the Google file is newest first)
    times = np.array([f[0] for f in fixes])
    row = {"fixes": len(fixes), "interval": float(np.median(np.diff(times))) if len(times) > 1 else None}
    acc = np.array([f[1] for f in fixes if f[1] is not None])
    if len(acc) == 0:
        return row
    row.update(median=float(np.median(acc)), p90=float(np.percentile(acc, 90)),
               min=float(acc.min()), max=float(acc.max()), reported=len(acc))
    if len(acc) > 1:
        changes = acc[1:] != acc[:-1]
        row["changes"] = float(changes.mean())
        runs = np.diff(np.concatenate(([0], np.flatnonzero(changes) + 1, [len(acc)])))
        row["run"] = float(np.median(runs))
    return row


def cell(value, digits=2):
    if value is None:
        return "–"
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def table(rows):
    lines = ["| trace | fixes | median m | p90 m | min m | max m | median interval s | changes | median run | note |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, r, note in rows:
        if isinstance(r, str):
            lines.append(f"| {name} | | | | | | | | | {r} |")
            continue
        if "reported" in r and r["reported"] < r["fixes"]:
            note = (note + "; " if note else "") + f"{r['reported']} of {r['fixes']} report an accuracy"
        lines.append(f"| {name} | {r['fixes']} | {cell(r.get('median'))} | {cell(r.get('p90'))} | "
                     f"{cell(r.get('min'))} | {cell(r.get('max'))} | {cell(r['interval'], 1)} | "
                     f"{cell(r.get('changes'), 3)} | {cell(r.get('run'), 1)} | {note} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", default=os.path.join(ROOT, "Fixtures", "real-traces"),
                        help="directory holding togeojson/ and trackintel/ (default Fixtures/real-traces)")
    parser.add_argument("--stroll", help="a stroll binary: also summarise each preset on " + WALK)
    opts = parser.parse_args()
    rows = []
    for name, kind in TRACES:
        path = os.path.join(opts.traces, name)
        if not os.path.exists(path):
            rows.append((name, "missing", ""))
            continue
        r = summary(read_gpx(path) if kind == "gpx" else read_csv(path))
        rows.append((name, r, "" if "median" in r else "no reported accuracy"))
    if opts.stroll:
        binary = os.path.abspath(opts.stroll) if os.sep in opts.stroll else opts.stroll
        for preset in PRESETS:
            fixes = read_stroll(binary, preset)
            rows.append((f"Stroll {preset} ({os.path.basename(WALK)}, seed 7)",
                         fixes if isinstance(fixes, str) else summary(fixes), ""))
    print(table(rows))


if __name__ == "__main__":
    main()
