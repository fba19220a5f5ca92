#!/usr/bin/env bash
# Runs the proximity workload with the Python peers a user would otherwise
# pick, beside `stroll bench`, on the same places and the same walk, and
# prints one table of p50 latencies and ratios.
#
#   Benchmarks/compare/run.sh [N ...]        (default: 10 100 10000 1000000)
#
# The peers go into a virtual environment (Benchmarks/compare/.venv).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy shapely scikit-learn scipy geographiclib
fi
cd "$root"
make -s deps
swift build -c release --product stroll >/dev/null
stroll="$(swift build -c release --show-bin-path)/stroll"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 100 10000 1000000)
"$venv/bin/python" "$here/peers.py" --stroll "$stroll" --trace "$root/traces/lime-street-to-campus.gpx" "${sizes[@]}"
