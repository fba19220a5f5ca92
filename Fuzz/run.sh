#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for FUZZ_SECONDS (default 60),
# seeded from the project's own files and ../shared/data. Findings are kept
# in FUZZ_FINDINGS/TARGET (default Fuzz/findings). The run fails on any
# finding: a target's non-zero exit (a crash, a leak LeakSanitizer reports, a
# timeout, running out of memory), any artifact it leaves (crash-, leak-,
# timeout-, oom-, slow-unit-), a target that is not built or does not start,
# and a build that fails. Fuzz/selftest.sh shows each of these failing it.
# Each target is also seeded from Fuzz/kept/<corpus>, the inputs earlier long
# runs found (FUZZ_KEEP=1, as `make fuzz-long` sets, merges what this run found
# into it: the smallest set of inputs that covers as much as the whole corpus,
# without the seeds the repository already holds).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
seconds="${FUZZ_SECONDS:-60}"
targets=("${@:-FuzzGPX FuzzCSV FuzzKML FuzzKMZ FuzzTCX FuzzNMEA FuzzGeoJSON FuzzPLT FuzzPlaces FuzzGolden FuzzState FuzzOSMPBF FuzzOSMXML}")
findings="${FUZZ_FINDINGS:-$here/findings}"
cd "$here"
if ! swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --scratch-path .build-fuzz > .build-fuzz.log 2>&1; then
  tail -40 .build-fuzz.log
  echo "fuzz: the targets do not build (Fuzz/.build-fuzz.log)"
  exit 1
fi
bin="$(swift build -c debug --scratch-path .build-fuzz --show-bin-path)"
seed() {
  local dir="$here/corpus/$1"; shift
  mkdir -p "$dir"
  for f in "$@" "$here/kept/$(basename "$dir")"/*; do [ -f "$f" ] && cp -n "$f" "$dir/" 2>/dev/null || true; done
  echo "$dir"
}
# One target: seeds its corpus, runs it, and says what it found; its exit
# status is the target's verdict. Its output goes to its own report, printed
# after every target has run.
run_target() {
  local t=$1 corpus="" code status=0
  case "$t" in
    FuzzGPX) corpus=$(seed gpx "$root"/traces/*.gpx "$root"/Fixtures/real-traces/*/*.gpx) ;;
    FuzzCSV) corpus=$(seed csv "$root"/traces/*.csv "$root"/Fixtures/real-traces/*/*.csv) ;;
    FuzzKML) corpus=$(seed kml "$root"/Fixtures/real-traces/*/*.kml) ;;
    FuzzKMZ) corpus=$(seed kmz "$root"/Fixtures/kmz/*.kmz) ;;
    FuzzTCX) corpus=$(seed tcx "$root"/Fixtures/real-traces/*/*.tcx) ;;
    FuzzNMEA) corpus=$(seed nmea) ; printf '$GPGGA,120000.00,5324.000,N,00258.000,W,1,08,0.9,10.0,M,0.0,M,,*4F\r\n$GPRMC,120000.00,A,5324.000,N,00258.000,W,1.0,90.0,011224,,*1A\r\n$GPGST,120000.00,1.0,2.0,1.5,30.0,3.0,4.0,5.0*4B\r\n' > "$corpus/walk.nmea" ;;
    FuzzGeoJSON) corpus=$(seed geojson) ; printf '{"type":"Feature","properties":{"coordTimes":["2024-05-01T12:00:00Z","2024-05-01T12:00:10Z"]},"geometry":{"type":"LineString","coordinates":[[-2.97,53.4,5],[-2.96,53.41]]}}' > "$corpus/walk.geojson" ;;
    FuzzPLT) corpus=$(seed plt) ; printf 'Geolife trajectory\nWGS 84\nAltitude is in Feet\nReserved 3\n0,2,255,My Track,0,0,2,8421376\n0\n39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\n' > "$corpus/walk.plt" ;;
    FuzzPlaces) corpus=$(seed places "$root"/Fixtures/*.plist "$root"/Fixtures/*.json) ;;
    FuzzGolden) corpus=$(seed golden "$root"/Tests/ProximityTests/Expected/*.json) ;;
    FuzzOSMPBF) corpus=$(seed osmpbf "$root"/Fixtures/osm/seeds/*.pbf "$root"/Fixtures/osm/regressions/*.pbf) ;;
    FuzzOSMXML) corpus=$(seed osmxml "$root"/Fixtures/osm/seeds/*.osm "$root"/Fixtures/osm/regressions/*.osm) ; printf '{"version":0.6,"generator":"Overpass API","elements":[{"type":"node","id":1,"lat":53.4,"lon":-2.97,"tags":{"amenity":"cafe"}},{"type":"way","id":2,"center":{"lat":53.41,"lon":-2.96},"tags":{"shop":"books"}}]}' > "$corpus/overpass.json" ;;
    FuzzState) corpus=$(seed state) ; echo '{"selected":"liverpool-4","sortMode":"distance","group":"liverpool"}' > "$corpus/state.json" ;;
  esac
  mkdir -p "$findings/$t"
  if [ "${FUZZ_KEEP:-0}" = 1 ]; then rm -rf "$findings/$t/before"; cp -r "$corpus" "$findings/$t/before"; fi
  echo "== $t for ${seconds}s"
  if [ ! -x "$bin/$t" ]; then
    echo "$t: no such fuzz target in $bin"
    return 1
  fi
  set +e
  "$bin/$t" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$findings/$t/" -print_final_stats=1 > "$findings/$t/last-run.log" 2>&1
  code=$?
  set -e
  grep -E "stat::number_of_executed_units|Done|ERROR|SUMMARY|crash-|leak-|timeout-|oom-|slow-unit-" "$findings/$t/last-run.log" || true
  if [ "$code" -ne 0 ]; then
    echo "$t: exit $code (the whole output: $findings/$t/last-run.log)"
    status=1
  fi
  if ! grep -q "stat::number_of_executed_units" "$findings/$t/last-run.log"; then
    echo "$t: did not run any input"
    status=1
  fi
  if [ "${FUZZ_KEEP:-0}" = 1 ] && [ "$code" -eq 0 ]; then
    # What the run found beyond what it started from, minimised: the new inputs
    # that libFuzzer's merge adds to the corpus it started from.
    name=$(basename "$corpus")
    rm -rf "$findings/$t/merged"
    cp -r "$findings/$t/before" "$findings/$t/merged"
    "$bin/$t" -merge=1 -max_len=65536 "$findings/$t/merged" "$corpus" > "$findings/$t/merge.log" 2>&1 || { echo "$t: the merge failed ($findings/$t/merge.log)"; status=1; }
    mkdir -p "$here/kept/$name"
    added=0
    for f in "$findings/$t/merged"/*; do
      if [ ! -e "$findings/$t/before/$(basename "$f")" ]; then cp "$f" "$here/kept/$name/"; added=$((added + 1)); fi
    done
    echo "$t: $added new inputs kept in Fuzz/kept/$name ($(ls "$here/kept/$name" | wc -l) in all)"
  fi
  artifacts=$(find "$findings/$t" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) -print)
  if [ -n "$artifacts" ]; then
    echo "$t: findings in $findings/$t:"
    echo "$artifacts"
    status=1
  fi
  return $status
}

# FUZZ_JOBS targets at a time (default: one per processor); each target is
# one process, so two run side by side on two cores in the time of one.
parallel="${FUZZ_JOBS:-$(nproc)}"
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
run_reported() {
  if run_target "$1" > "$reports/$1.log" 2>&1; then echo 0 > "$reports/$1.status"; else echo 1 > "$reports/$1.status"; fi
}
for t in ${targets[@]}; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  run_reported "$t" &
done
wait || true
status=0
for t in ${targets[@]}; do
  cat "$reports/$t.log"
  [ "$(cat "$reports/$t.status" 2>/dev/null)" = 0 ] || { echo "$t: failed"; status=1; }
done
exit $status
