#!/usr/bin/env bash
# Proves that a new app package depending on Stroll BY VERSION builds and its
# tests pass, written as docs/Compatibility.md tells app developers to write it.
#
#   bash Tests/IntegrationTests/consumer/run.sh        (or: make test-consumer)
#
# What it does, all inside a throwaway directory removed on exit:
#   1. clones this repository's committed HEAD into <tmp>/stroll and tags it
#      0.1.0 there (the only tag in the clone, so `from: "0.1.0"` picks it);
#   2. copies the consumer template (Tests/IntegrationTests/consumer/Package of that HEAD: the
#      CafeFinder app logic in the Swift 5 language mode, and its tests) to
#      <tmp>/CafeFinder and points its `.package(url:from:)` at
#      file://<tmp>/stroll;
#   3. builds it and runs its tests without STROLL_TARGET_CPU (a user has
#      none), with a scratch path of its own, so SwiftPM treats Stroll as a
#      versioned dependency: unsafe flags there are an error, its warnings are
#      hidden, only the products the app uses are built;
#   4. checks that no module of SwiftNIO, a PostgreSQL client, swift-crypto or
#      BoringSSL was built, that Stroll's products the app uses were, and that
#      the app's own code compiled without a warning.
#
# It tests what is COMMITTED: uncommitted changes are reported and left out.
# STROLL_CONSUMER_KEEP=1 keeps the throwaway directory for a look afterwards.
# The Stroll products are for Linux only (Apple platforms use Apple's
# frameworks), so elsewhere the check is skipped.
set -euo pipefail

SWIFT=${SWIFT:-swift}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
began=$SECONDS

fail() {
    echo "FAIL: a package depending on Stroll by version: $*" >&2
    exit 1
}

if [ "$(uname -s)" != Linux ]; then
    echo "SKIP: the consumer check runs on Linux only (Stroll's CoreLocation and MapKit are for Linux)"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/stroll-consumer.XXXXXX")
if [ "${STROLL_CONSUMER_KEEP:-}" = 1 ]; then
    trap 'echo "kept $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

# 1. Stroll as a user gets it: the committed HEAD, tagged 0.1.0. The clone
# directory's name is the package identity SwiftPM derives from the URL.
head=$(git -C "$repo" rev-parse HEAD)
if [ -n "$(git -C "$repo" status --porcelain)" ]; then
    echo "note: $repo has uncommitted changes; they are NOT tested, the committed HEAD ${head:0:12} is"
fi
clone="$work/stroll"
git clone --quiet "$repo" "$clone"
git -C "$clone" checkout --quiet --detach "$head"
# Tags copied from the repository could outrank 0.1.0; drop them all.
git -C "$clone" tag --list | xargs -r git -C "$clone" tag --delete >/dev/null
git -C "$clone" tag 0.1.0 "$head"
echo "Stroll ${head:0:12} cloned to $clone and tagged 0.1.0"

# 2. The app package beside it, its dependency line pointing at the clone.
consumer="$work/CafeFinder"
cp -R "$clone/Tests/IntegrationTests/consumer/Package" "$consumer"
rm -rf "$consumer/.build" "$consumer/.swiftpm" "$consumer/Package.resolved"
template_url='https://github.com/OWNER/stroll'
grep -qF ".package(url: \"$template_url\", from: \"0.1.0\")" "$consumer/Package.swift" ||
    fail "the template's Package.swift has no .package(url: \"$template_url\", from: \"0.1.0\") to point at the clone"
sed -i "s|$template_url|file://$clone|" "$consumer/Package.swift"
echo "CafeFinder depends on: $(grep -F '.package(url:' "$consumer/Package.swift" | sed 's/^ *//')"

# 3. Build and test as a user would: no STROLL_TARGET_CPU (the Makefile exports
# one), a scratch path inside the throwaway directory.
scratch="$work/build"
cd "$consumer"
echo "==> swift build --build-tests"
if ! env -u STROLL_TARGET_CPU "$SWIFT" build --build-tests --scratch-path "$scratch" 2>&1 | tee "$work/build.log"; then
    fail "swift build failed (log above)"
fi
echo "==> swift test"
if ! env -u STROLL_TARGET_CPU "$SWIFT" test --scratch-path "$scratch" 2>&1 | tee "$work/test.log"; then
    fail "swift test failed (log above)"
fi
grep -Eq 'Test run with [1-9][0-9]* tests? .*passed' "$work/test.log" || fail "swift test ran no tests"

# 4. What was built. SwiftPM makes a <Target>.build folder for every target
# of the package graph, compiled or not; a module was compiled when its folder
# holds object files (Swift's at its top, C's under src/).
debug="$scratch/debug"
[ -d "$debug" ] || fail "no debug build folder at $debug"
built=$(find -L "$debug" -path "$debug/*.build/*" -name '*.o' | sed "s|^$debug/||; s|\.build/.*||" | sort -u)
echo "==> modules compiled: $(echo "$built" | tr '\n' ' ')"
echo "==> packages resolved: $(ls "$scratch/checkouts" 2>/dev/null | tr '\n' ' ')"

# Nothing of a network or database stack: no object file, module or library
# of theirs anywhere under the build folder, and no compile step in the log.
unwanted='NIO|Postgres|Crypto|BoringSSL|CNIO'
found=$(find -L "$debug" -type f \( -name '*.o' -o -name '*.swiftmodule' -o -name '*.a' -o -name '*.so' \) |
    sed "s|^$debug/||" | grep -Ei "$unwanted" | sort || true)
[ -z "$found" ] || fail "compiled what an app using CoreLocation and MapKit must not need: $(echo "$found" | tr '\n' ' ')"
steps=$(grep -Ei "(Compiling|Emitting module|Linking|Building) +[^ ]*($unwanted)" "$work/build.log" || true)
[ -z "$steps" ] || fail "the build log compiles what it must not: $steps"

# Stroll's products the app and its tests use were built from the clone.
for module in CoreLocation MapKit StrollSimulation StrollTesting CafeFinder CafeFinderTests; do
    echo "$built" | grep -qx "$module" || fail "module $module was not built"
done

# No warning, neither the compiler's on the app's code (Stroll's own are
# hidden, as for any versioned dependency) nor SwiftPM's on the packages.
warnings=$(grep -F 'warning:' "$work/build.log" "$work/test.log" || true)
[ -z "$warnings" ] || fail "warnings in the app's build: $warnings"

took=$((SECONDS - began))
printf 'PASS: a package depending on Stroll 0.1.0 (%s) by version builds and its tests pass, without NIO, PostgreSQL, Crypto or BoringSSL (%dm%02ds)\n' \
    "${head:0:12}" $((took / 60)) $((took % 60))
