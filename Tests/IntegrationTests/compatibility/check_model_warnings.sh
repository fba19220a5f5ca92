#!/bin/sh
# The standard location model of an iOS app (a nonisolated ObservableObject
# that owns a CLLocationManager and is its delegate, Tests/CompatibilityTests/
# StandardLocationModel.swift and its Swift 5 copy) compiles against Stroll's
# CoreLocation without a single warning, as it does against Apple's SDK: each
# copy compiled alone, in its target's language mode, with
# -warnings-as-errors, against the debug build's modules (run after
# `swift build --build-tests`; SWIFT names the toolchain's swift, default swift).
# Compiling the whole targets so would recompile every module they depend on
# with warnings as errors; this compiles only the model.
set -eu
cd "$(dirname "$0")/../../.."
SWIFT=${SWIFT:-swift}
BIN=$($SWIFT build --show-bin-path)
MODULES="$BIN/Modules"
[ -d "$MODULES" ] || MODULES="$BIN"
[ -f "$MODULES/CoreLocation.swiftmodule" ] || [ -d "$MODULES/CoreLocation.swiftmodule" ] || {
    echo "check_model_warnings: no CoreLocation module in $MODULES: run swift build --build-tests first" >&2; exit 1; }
# The C modules CoreLocation's dependencies import (GEOS, zlib, SQLite, libpq, OpenCombine's helpers).
MAPS=""
for map in Sources/C*/module.modulemap "$BIN"/*.build/module.modulemap; do
    [ -f "$map" ] && MAPS="$MAPS -Xcc -fmodule-map-file=$map"
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
status=0
for pair in "6 Tests/CompatibilityTests/StandardLocationModel.swift" "5 Tests/CompatibilitySwift5Tests/StandardLocationModel.swift"; do
    mode=${pair%% *}
    file=${pair#* }
    # shellcheck disable=SC2086
    if "${SWIFTC:-swiftc}" -swift-version "$mode" -warnings-as-errors -parse-as-library -module-name StandardLocationModel \
        -I "$MODULES" $MAPS -module-cache-path "$WORK/cache" -c "$file" -o "$WORK/model.o" >"$WORK/log" 2>&1; then
        echo "ok: $file compiles without warnings in the Swift $mode language mode"
    else
        cat "$WORK/log" >&2
        echo "FAIL: $file has warnings or errors in the Swift $mode language mode" >&2
        status=1
    fi
done
exit $status
