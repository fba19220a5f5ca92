#!/usr/bin/env bash
# Shows that the fuzz stage fails on every kind of finding, then passes
# without it: a crash and a leak injected into a target (STROLL_FUZZ_INJECT,
# see FuzzDriver), and a target that does not exist. Each run writes its
# findings into a folder of its own, removed afterwards.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

expect_failure() {
    local what=$1 artifact=$2
    shift 2
    echo "== selftest: $what"
    if "$@" > "$work/out.log" 2>&1; then
        echo "FAIL: the fuzz stage passed with $what"
        cat "$work/out.log"
        failures=$((failures + 1))
        return
    fi
    if [ -n "$artifact" ] && ! grep -q "$artifact" "$work/out.log"; then
        echo "FAIL: with $what the stage failed without naming a $artifact artifact"
        cat "$work/out.log"
        failures=$((failures + 1))
        return
    fi
    echo "   failed, as it must: $(grep -E "FuzzCSV: |FuzzNoSuchTarget: " "$work/out.log" | head -2 | tr '\n' ' ')"
}

expect_failure "a crash injected" "crash-" env STROLL_FUZZ_INJECT=crash FUZZ_SECONDS=5 FUZZ_FINDINGS="$work/crash" "$here/run.sh" FuzzCSV
expect_failure "a leak injected" "leak-" env STROLL_FUZZ_INJECT=leak FUZZ_SECONDS=5 FUZZ_FINDINGS="$work/leak" "$here/run.sh" FuzzCSV
expect_failure "a target that is not built" "" env FUZZ_SECONDS=5 FUZZ_FINDINGS="$work/missing" "$here/run.sh" FuzzNoSuchTarget
echo "== selftest: the same target without an injection"
if ! env FUZZ_SECONDS=3 FUZZ_FINDINGS="$work/clean" "$here/run.sh" FuzzCSV > "$work/out.log" 2>&1; then
    echo "FAIL: the clean target failed"
    cat "$work/out.log"
    failures=$((failures + 1))
else
    echo "   passed"
fi
[ "$failures" -eq 0 ] && echo "fuzz selftest: every kind of finding fails the stage" || exit 1
