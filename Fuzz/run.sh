#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for FUZZ_SECONDS (default 60),
# seeded from the project's own files and ../shared/data. Findings are kept
# as Fuzz/findings/TARGET/crash-*; a finding fails the run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
seconds="${FUZZ_SECONDS:-60}"
targets=("${@:-FuzzGPX FuzzCSV FuzzPlaces FuzzGolden FuzzState}")
cd "$here"
swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --scratch-path .build-fuzz >/dev/null
bin="$(swift build -c debug --scratch-path .build-fuzz --show-bin-path)"
seed() {
  local dir="$here/corpus/$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp -n "$f" "$dir/" 2>/dev/null || true; done
  echo "$dir"
}
status=0
for t in ${targets[@]}; do
  case "$t" in
    FuzzGPX) corpus=$(seed gpx "$root"/traces/*.gpx "$root"/Fixtures/real-traces/*/*.gpx) ;;
    FuzzCSV) corpus=$(seed csv "$root"/traces/*.csv "$root"/Fixtures/real-traces/*/*.csv) ;;
    FuzzPlaces) corpus=$(seed places "$root"/Fixtures/*.plist "$root"/Fixtures/*.json) ;;
    FuzzGolden) corpus=$(seed golden "$root"/Tests/ProximityTests/Expected/*.json) ;;
    FuzzState) corpus=$(seed state) ; echo '{"selected":"liverpool-4","sortMode":"distance","group":"liverpool"}' > "$corpus/state.json" ;;
  esac
  mkdir -p "$here/findings/$t"
  echo "== $t for ${seconds}s"
  if ! "$bin/$t" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$here/findings/$t/" -print_final_stats=1 2>&1 | grep -E "stat::number_of_executed_units|Done|ERROR|SUMMARY|crash-|timeout-|oom-"; then
    :
  fi
  if [ -n "$(find "$here/findings/$t" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) -print -quit)" ]; then
    echo "$t: findings in Fuzz/findings/$t"
    status=1
  fi
done
exit $status
