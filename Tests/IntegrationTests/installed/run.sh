#!/usr/bin/env bash
# Stroll installed like a tool, from its Debian package (make test-installed):
#
#   1. scripts/deb builds stroll_VERSION_ARCH.deb; scripts/install into a
#      staging root, then --uninstall, leaves no file (make install's path);
#   2. dpkg -i installs it (apt-get install -f brings what Depends names when
#      missing; a man page excluded by a dpkg path-exclude, as Debian's slim
#      images have in /etc/dpkg/dpkg.cfg.d, is included again for this
#      package, so the man check below is real);
#   3. ldd /usr/bin/stroll: every library from a Debian package, none from
#      the Swift toolchain;
#   4. /usr/bin/stroll under `env -i PATH=/usr/bin:/bin`: --help, a trace
#      read from a directory that is not a checkout, and `stroll` alone (the
#      bundled walk) there with the build's checkout hidden by a mount
#      namespace: a user's machine has no checkout;
#   5. check_examples.py --selftest, then every documented example with
#      /usr/bin/stroll (check_examples.py /usr/bin);
#   6. bash completes `stroll ro<TAB>` to `route` through bash-completion's
#      own loader, from /usr/share/bash-completion/completions/stroll;
#   7. `man stroll` renders, without a troff warning;
#   8. dpkg --purge stroll leaves none of the files `dpkg -L stroll` listed.
#
# It installs and purges the package `stroll` system-wide (root, or sudo).
# A failing step stops the stage; the package is purged on the way out.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export DEBIAN_FRONTEND=noninteractive
began=$SECONDS
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
failures=0

times=()
current=""
step_began=$SECONDS
# Each step's time is printed when the next begins, and all of them at the end.
step() {
    [ -z "$current" ] || times+=("$(printf '%4d s  %s' $((SECONDS - step_began)) "$current")")
    current=$*
    step_began=$SECONDS
    printf '\n==> %s\n' "$*"
}
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
clean_env() { env -i PATH=/usr/bin:/bin HOME="$home" "$@"; }

home=$(mktemp -d)
work=$(mktemp -d)
installed=0
cleanup() {
    if [ "$installed" = 1 ] && dpkg-query -W -f='${db:Status-Status}' stroll 2>/dev/null | grep -q installed; then
        $sudo dpkg --purge stroll > /dev/null || true
    fi
    rm -rf "$home" "$work"
}
trap cleanup EXIT

scripts/apt-need bash-completion man-db binutils dpkg-dev

if [ -e /usr/bin/stroll ] && ! dpkg -S /usr/bin/stroll > /dev/null 2>&1; then
    echo "error: /usr/bin/stroll exists and no package owns it; not overwriting it" >&2
    exit 1
fi
if dpkg-query -W -f='${db:Status-Status}' stroll 2>/dev/null | grep -q installed; then
    echo "a stroll package is installed: purging it first"
    $sudo dpkg --purge stroll > /dev/null
fi

step "1. the package (scripts/deb)"
t=$SECONDS
scripts/deb
deb=$(ls -t stroll_"$(tr -d '[:space:]' < VERSION)"_"$(dpkg --print-architecture)".deb | head -1)
echo "built $deb in $((SECONDS - t)) s"
bin=.build-deb/package/usr/bin/stroll
scripts/install "$bin" "$work/stage/usr/local" > /dev/null
scripts/install --uninstall "$work/stage/usr/local" > /dev/null
left=$(find "$work/stage" -type f)
[ -z "$left" ] || fail "scripts/install --uninstall left: $left"

step "2. dpkg -i $deb"
include=()
excluded=$(grep -hs '^path-exclude' /etc/dpkg/dpkg.cfg.d/* /etc/dpkg/dpkg.cfg || true)
if [ -n "$excluded" ]; then
    echo "dpkg excludes paths on this machine:"
    echo "$excluded" | sed 's/^/    /'
    # Later options win: the package's own man page and docs are installed.
    include=(--path-include='/usr/share/man/man1/stroll.1.gz' --path-include='/usr/share/doc/stroll/*')
fi
installed=1
if ! $sudo dpkg "${include[@]}" -i "$deb"; then
    echo "dpkg -i left dependencies to install: apt-get install -f"
    $sudo apt-get -o DPkg::Lock::Timeout=900 update -qq
    $sudo apt-get -o DPkg::Lock::Timeout=900 install -f -y -qq
fi
dpkg-query -W -f='${db:Status-Status}\n' stroll | grep -qx installed || { echo "error: stroll is not installed" >&2; exit 1; }
files=$(dpkg -L stroll)
for path in /usr/bin/stroll /usr/share/man/man1/stroll.1.gz /usr/share/bash-completion/completions/stroll \
            /usr/share/zsh/site-functions/_stroll /usr/share/fish/vendor_completions.d/stroll.fish \
            /usr/share/doc/stroll/copyright /usr/share/stroll/traces/lime-street-to-campus.gpx; do
    [ -f "$path" ] || fail "$path was not installed"
done
echo "Depends: $(dpkg-query -W -f='${Depends}' stroll)"

step "3. ldd /usr/bin/stroll"
ldd /usr/bin/stroll | sed 's/^/    /'
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)")")")
if ldd /usr/bin/stroll | grep -E "not found|$toolchain|/opt/swift"; then
    fail "/usr/bin/stroll loads libraries from the Swift toolchain ($toolchain) or that are missing"
fi
for library in $(ldd /usr/bin/stroll | awk '$2 == "=>" { print $3 }'); do
    dpkg -S "$(readlink -f "$library")" > /dev/null 2>&1 || dpkg -S "$library" > /dev/null 2>&1 \
        || fail "$library: no Debian package installs it"
done
echo "every library from a Debian package; none under $toolchain"

step "4. /usr/bin/stroll under env -i PATH=/usr/bin:/bin"
mkdir -p "$work/away"
cp traces/campus-loop.gpx "$work/away/walk.gpx"
(cd "$work/away" && clean_env stroll --help > "$work/help.txt") || fail "stroll --help exited $?"
grep -q '^USAGE: stroll' "$work/help.txt" || fail "stroll --help printed no usage"
(cd "$work/away" && clean_env stroll trace info walk.gpx --json > "$work/info.json") || fail "stroll trace info exited $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["points"] > 0, d' "$work/info.json" \
    || fail "stroll trace info walk.gpx --json: no points"
# The walk and places a bare `stroll` replays, as on a machine without the
# checkout the binary was built from: that checkout is hidden under an empty
# directory in a mount namespace of this step alone.
checkout=$(pwd)
mkdir -p "$work/empty"
if $sudo unshare --mount true 2> /dev/null; then
    if (cd "$work/away" && $sudo unshare --mount sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh \
            "$work/empty" "$checkout" env -i PATH=/usr/bin:/bin HOME="$home" stroll > "$work/bare.txt" 2> "$work/bare.err"); then
        grep -q '^Summary: ' "$work/bare.txt" || fail "stroll (no arguments, away from a checkout) printed no summary"
        echo "stroll alone, away from any checkout: $(grep '^Summary: ' "$work/bare.txt" | cut -c1-100)…"
    else
        fail "stroll (no arguments), away from any checkout, exited non-zero: $(head -3 "$work/bare.err")"
    fi
else
    echo "SKIP: no mount namespace here (unshare --mount): stroll alone away from the checkout not run"
fi

step "5. every documented example with /usr/bin/stroll"
python3 Tests/IntegrationTests/installed/check_examples.py /usr/bin --selftest || fail "check_examples.py --selftest"
python3 Tests/IntegrationTests/installed/check_examples.py /usr/bin || fail "documented examples (above)"

step "6. bash completes 'stroll ro<TAB>'"
completion=$(clean_env bash --norc --noprofile -c '
    source /usr/share/bash-completion/bash_completion
    __load_completion stroll || { echo "no completion loaded for stroll"; exit 1; }
    spec=$(complete -p stroll) || exit 1
    handler=$(sed -n "s/.* -F \([^ ]*\) .*/\1/p" <<< "$spec")
    COMP_WORDS=(stroll ro); COMP_CWORD=1; COMP_LINE="stroll ro"; COMP_POINT=${#COMP_LINE}
    "$handler" stroll ro stroll
    printf "%s\n" "${COMPREPLY[@]}"') || fail "bash completion: $completion"
echo "COMPREPLY: $(echo "$completion" | paste -sd' ')"
grep -qx route <<< "$completion" || fail "bash completion of 'stroll ro' gave no 'route'"

step "7. man stroll"
clean_env MANWIDTH=80 man --warnings stroll > "$work/man.txt" 2> "$work/man.err" || fail "man stroll exited $?"
[ ! -s "$work/man.err" ] || fail "man stroll warned: $(head -5 "$work/man.err")"
grep -q 'stroll replay' "$work/man.txt" && grep -q 'SYNOPSIS' "$work/man.txt" \
    || fail "man stroll rendered no page with a SYNOPSIS and stroll replay"
echo "man stroll: $(wc -l < "$work/man.txt") lines; $(grep -c '^   stroll ' "$work/man.txt") command sections"

step "8. dpkg --purge stroll"
$sudo dpkg --purge stroll > /dev/null
installed=0
left=()
while read -r path; do
    [ -n "$path" ] || continue
    if [ -d "$path" ] && ! [ -L "$path" ]; then
        # A directory stays when another package owns it; one of stroll's
        # own (/usr/share/doc/stroll) or an empty one nobody owns must go.
        if ! dpkg -S "$path" > /dev/null 2>&1 && { [[ $path == */stroll* ]] || [ -z "$(ls -A "$path")" ]; }; then
            left+=("$path")
        fi
    elif [ -e "$path" ] || [ -L "$path" ]; then
        left+=("$path")
    fi
done <<< "$files"
if [ ${#left[@]} -gt 0 ]; then
    fail "left after dpkg --purge: ${left[*]}"
else
    echo "none of the package's $(grep -c . <<< "$files") paths is left"
fi

step "done"
printf '%s\n' "${times[@]}"
took=$((SECONDS - began))
if [ "$failures" -gt 0 ]; then
    printf '\ntest-installed: %d checks failed (%dm%02ds)\n' "$failures" $((took / 60)) $((took % 60))
    exit 1
fi
printf '\ntest-installed: passed in %dm%02ds\n' $((took / 60)) $((took % 60))
