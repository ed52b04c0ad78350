#!/usr/bin/env bash
# The Pi's package (#50): questbox_<v>_arm64.deb cross-built here from Debian's packages alone
# (scripts/package-deb.sh --arch arm64; the toolchain cached in /tmp/questbox-arm64), then:
#   1. what dpkg says of it: Architecture arm64, Depends on trixie's libgpiod3 (never
#      libgpiod2) and ALSA, its programs aarch64 with no Swift runtime needed; lintian as for
#      amd64;
#   2. its own programs (unpacked from the package, not the build folder) run under
#      qemu-user with the trixie arm64 libraries: --version, the boards it installed, a routine
#      imported and the example quest played on the virtual clock with every effect traced,
#      byte for byte the same as this machine's build prints (quest ids aside, random); and questbox-web answers `/`.
#   3. the pure modules' unit tests (QuestCore, ScreenRender, RoutineFormat, BoxProtocol,
#      BoardProfile without its two tests that run this machine's questbox) built for arm64
#      and run under qemu-user;
#   4. the arm64 machine (Tests/Arm64/hil.sh): trixie's arm64 kernel in qemu-system-aarch64
#      with gpio-sim, the loopback card and i2c-stub, the package installed there by apt-get,
#      the HIL doctor, quest and display against it, then purged.
#   Tests/Arm64/run.sh [--without-machine] [--without-unit-tests] [DEB]
# --without-machine: 1 to 3 only (CI runs them beside its first stages, then 4 by itself,
# Tests/Arm64/hil.sh, once the host is quiet). --without-unit-tests: not 3 (CI's 90 minutes on
# a 2-core host do not hold its 7: docs/hil.md, CI times). $QUESTBOX_NATIVE: this machine's
# questbox to compare the trace with (default: the debug build, built when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
source scripts/arm64-toolchain.sh
install_missing_packages lintian curl
fail() { echo "FAIL arm64: $*" >&2; exit 1; }
say() { echo "arm64: $*" >&2; }
started=$SECONDS
arm64_prepare
machine=yes unit_tests=yes
while [[ ${1:-} == --without-* ]]; do
    case $1 in
    --without-machine) machine= ;;
    --without-unit-tests) unit_tests= ;;
    *) fail "unknown option $1" ;;
    esac
    shift
done
deb=${1:-$(scripts/package-deb.sh --arch arm64)}
deb=$(realpath "$deb")
say "package made in $((SECONDS - started)) s: $(basename "$deb"), $(du -h "$deb" | cut -f1)"

# 1. What dpkg says.
[[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || fail "Architecture is $(dpkg-deb -f "$deb" Architecture)"
depends=$(dpkg-deb -f "$deb" Depends)
for needed in "libgpiod3" "libasound2t64" "libsqlite3-0" "libc6 (>= " "libmosquitto1" "libespeak-ng1" "libssl3t64"; do
    [[ $depends == *"$needed"* ]] || fail "Depends lacks $needed: $depends"
done
[[ $depends != *libgpiod2* ]] || fail "Depends names bookworm's libgpiod2: $depends"
say "Depends: $depends"
lintian --fail-on error,warning "$deb" 2>&1 | grep -v "running with root privileges" >&2 || true
lintian --fail-on error,warning "$deb" >/dev/null 2>&1 || fail "lintian reports errors or warnings on the arm64 package (above)"

unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"; [[ -z ${web:-} ]] || kill "$web" 2>/dev/null || true' EXIT
dpkg-deb -x "$deb" "$unpacked"
for program in questbox questbox-web questbox-link; do
    file "$unpacked/usr/bin/$program" | grep -q "ARM aarch64" || fail "$program is not an aarch64 program: $(file "$unpacked/usr/bin/$program")"
    if readelf -d "$unpacked/usr/bin/$program" | grep NEEDED | grep -Eq 'libswift|libFoundation|libdispatch'; then
        fail "$program needs the Swift runtime installed"
    fi
done

# 2. The package's own programs under qemu-user, against this machine's build.
qb() { arm64_run "$unpacked/usr/bin/questbox" "$@"; }
version=$(dpkg-deb -f "$deb" Version)
[[ $(qb --version) == "$version (arm64)" ]] || fail "questbox --version says $(qb --version), the package $version (arm64)"
# The boards and sounds are found beside the program (../share/questbox), as installed.
qb boards list > "$unpacked/boards.txt" 2>&1 || { cat "$unpacked/boards.txt" >&2; fail "boards list"; }
for board in rpi4 rpi5 rpi-zero2w; do grep -q "^$board — " "$unpacked/boards.txt" || fail "boards list lacks $board: $(cat "$unpacked/boards.txt")"; done
native=${QUESTBOX_NATIVE:-$(swift build --show-bin-path)/questbox}
[[ -x $native || -n ${QUESTBOX_NATIVE:-} ]] || swift build --product questbox >&2
[[ -x $native ]] || fail "no questbox at $native to compare the trace with"
# Both on the same fixed calendar day, so every date in the trace is the same.
play() {  # RUNNER… : the example routine and quest, traced, in a fresh data folder
    local data
    data=$(mktemp -d)
    "$@" routine import deploy/example-routine.json --data "$data" >/dev/null
    "$@" simulate --events deploy/example-quest.events --now 2026-03-02T07:40:00Z --trace --data "$data"
    rm -rf "$data"
}
# Each quest's id is random: named alike before comparing.
same_ids() { sed -E 's/[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/QUEST-ID/g'; }
play qb 2>&1 | same_ids > "$unpacked/arm64.txt" || { tail -n 20 "$unpacked/arm64.txt" >&2; fail "the arm64 simulate failed"; }
play "$native" 2>&1 | same_ids > "$unpacked/native.txt" || fail "this machine's simulate failed"
cmp -s "$unpacked/arm64.txt" "$unpacked/native.txt" \
    || { diff "$unpacked/native.txt" "$unpacked/arm64.txt" | head -n 20 >&2; fail "the arm64 quest's trace differs from this machine's"; }
grep -q '"effect":"sound"' "$unpacked/arm64.txt" || fail "the traced quest played no sound"
say "the example quest on arm64: $(wc -l < "$unpacked/arm64.txt") traced lines, the same as $(uname -m)"
# The PIN's scrypt from trixie's arm64 libcrypto (opened when first needed).
pin_data=$(mktemp -d -p "$unpacked")
echo 2468 | qb pin set --data "$pin_data" >/dev/null || fail "pin set (arm64)"
echo 2468 | qb pin check --data "$pin_data" >/dev/null || fail "pin check (arm64) refused the PIN just set"
if echo 2469 | qb pin check --data "$pin_data" >/dev/null 2>&1; then fail "pin check (arm64) took a wrong PIN"; fi
# #35's clips for the example routine, rendered by this package's questbox with trixie's
# eSpeak NG, for the arm64 machine's quest (guest/arm64): seconds here, minutes there.
seed=.build/hil-arm64/voice-seed
rm -rf "$seed" && mkdir -p "$seed"
voice_data=$(mktemp -d -p "$unpacked")
# (qemu-user finds the sysroot's files for the program's opens, not for its checks: told where.)
if qb routine import deploy/example-routine.json --data "$voice_data" >/dev/null \
    && QUESTBOX_ESPEAK_DATA=$arm64_root$arm64_sysroot/usr/lib/aarch64-linux-gnu/espeak-ng-data qb voice prepare --data "$voice_data" >/dev/null \
    && cp "$voice_data"/voice/*.clip "$seed/"; then
    say "the example routine's voice: $(ls "$seed" | wc -l) clips rendered for the arm64 machine"
else
    rm -rf "$seed"
    say "the example routine's voice was not rendered here (the machine renders it)"
fi

# questbox-web answers its first page.
port=$((20000 + RANDOM % 20000))
data=$(mktemp -d -p "$unpacked")
# qemu itself in the background (not a function's subshell), so the kill below reaches it.
QUESTBOX_WEB_RESOURCES=$unpacked/usr/share/questbox/web "${ARM64_RUNNER[@]}" \
    "$unpacked/usr/bin/questbox-web" --data "$data" --listen 127.0.0.1 --port "$port" > "$unpacked/web.log" 2>&1 &
web=$!
for _ in $(seq 300); do curl -fsSL -o "$unpacked/index.html" "http://127.0.0.1:$port/" 2>/dev/null && break; sleep 0.2; done
[[ -s $unpacked/index.html ]] || { cat "$unpacked/web.log" >&2; fail "questbox-web (arm64) did not answer /"; }
grep -qi "<html" "$unpacked/index.html" || fail "questbox-web's / is not a page"
kill "$web" && wait "$web" 2>/dev/null || true
web=
# 3. The pure modules' unit tests, built for arm64 and run under qemu-user.
tests="the pure modules' unit tests passed on arm64"
if [[ -n $unit_tests ]]; then
    say "the pure modules' unit tests for arm64 (QuestCore, ScreenRender, RoutineFormat, BoxProtocol, BoardProfile) under qemu-user"
    tests_started=$SECONDS
    arm64_unit_tests > "$unpacked/unit-tests.log" 2>&1 || { tail -n 40 "$unpacked/unit-tests.log" >&2; fail "the arm64 unit tests failed"; }
    ran=$(grep -E "Test run with [0-9]+ tests" "$unpacked/unit-tests.log" | tail -n 1)
    [[ $ran == *passed* ]] || { tail -n 40 "$unpacked/unit-tests.log" >&2; fail "the arm64 unit tests did not say they passed"; }
    echo "arm64 unit tests: $ran ($((SECONDS - tests_started)) s with the build)"
else
    tests="the pure modules' unit tests not run"
fi

if [[ -z $machine ]]; then
    echo "PASS arm64 (without the machine): $(basename "$deb") (Architecture arm64, Depends libgpiod3), its programs under qemu-user: the example quest traced byte for byte as on $(uname -m), a PIN set and checked, questbox-web answers /; $tests ($((SECONDS - started)) s)"
    exit 0
fi
# 4. The arm64 machine.
Tests/Arm64/hil.sh "$deb" || fail "the HIL scenarios in the arm64 VM"

echo "PASS arm64: $(basename "$deb") (Architecture arm64, Depends libgpiod3), its programs under qemu-user: the example quest traced byte for byte as on $(uname -m), a PIN set and checked, questbox-web answers /; $tests; installed by apt-get in the arm64 VM, the HIL doctor, quest and display passed there, purged ($((SECONDS - started)) s)"
