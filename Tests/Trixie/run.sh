#!/usr/bin/env bash
# Current Raspberry Pi OS is Debian trixie, with libgpiod 2.x (libgpiod3): the box proven there,
# in a real trixie root made with debootstrap (trixie's libgpiod-dev, ALSA, SQLite, compilers'
# C libraries; this machine's Swift toolchain and package mirror bind-mounted in, read-only):
#   1. the whole unit suite built (warnings are errors) and run there;
#   2. the trixie package built there by scripts/package-deb.sh: Depends names libgpiod3 and
#      no libgpiod2; lintian as for bookworm;
#   3. that package installed with apt-get into a fresh trixie root (Debian's packages only, no
#      toolchain): its version, its boards and a quest on its own boards and sounds;
#   4. the VM (Tests/HIL) booted over the trixie root instead of this machine's: the HIL
#      doctor, quest and bounce run the package's program on the kernel's gpio-sim chip.
# The roots and the build folders are kept in $TRIXIE_CACHE (default /tmp/questbox-trixie),
# like the HIL kernel: a second run builds only what changed.
# Not in .ci/run since the arm64 stage (Tests/Arm64/run.sh: the trixie arm64 build on
# libgpiod 2.x, installed and played in an arm64 VM) took its place; run by hand.
#   Tests/Trixie/run.sh [SCENARIO…]      (default HIL scenarios: doctor quest bounce)
set -euo pipefail
cd "$(dirname "$0")/../.."
checkout=$(pwd -P)
source scripts/setup.sh
install_missing_packages debootstrap lintian
fail() { echo "FAIL trixie: $*" >&2; exit 1; }
say() { echo "trixie: $*" >&2; }
cache=${TRIXIE_CACHE:-/tmp/questbox-trixie}
root=$cache/root
builds=$cache/build
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
[[ -x $toolchain/usr/bin/swift-frontend ]] || fail "no Swift toolchain at $toolchain"
mirror=http://deb.debian.org/debian
# What the build root holds beyond minbase: the libraries the box links (libgpiod 2.x, ALSA,
# SQLite, libmosquitto, libespeak-ng) with their headers, the broker and openssl for the link's tests, what the toolchain itself links (ncurses, uuid, zlib, libxml2,
# curl), C runtime files for linking, git for SwiftPM, dpkg-dev and patchelf for the package,
# and what the HIL scenarios run in the VM (python3, kmod, procps).
build_packages=libgpiod-dev,libasound2-dev,libsqlite3-dev,libmosquitto-dev,libcurl4-openssl-dev,libespeak-ng-dev,mosquitto,openssl,pkgconf,libc6-dev,libstdc++-14-dev,libgcc-14-dev,binutils,git,python3,dpkg-dev,patchelf,file,libncurses6,libuuid1,zlib1g-dev,libxml2,libcurl4t64,kmod,procps,ca-certificates
mkdir -p "$cache" "$builds"
# One run at a time: two checkouts share the root and the build folders.
exec 9> "$cache/lock"
flock 9

# Mounts made here, undone on exit (innermost first); nothing is ever deleted below a mount.
mounts=()
fresh=()
mount_in() {  # mount arguments… TARGET
    mount "$@"
    mounts+=("${*: -1}")
}
unmount_all() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
    mounts=()
}
cleanup() {
    unmount_all
    local r
    for r in "${fresh[@]}"; do
        # A fresh root is removed only when nothing is mounted below it.
        grep -q " $r/" /proc/mounts || rm -rf "$r"
    done
}
trap cleanup EXIT
# A run killed before its clean-up (a session that ended mid-run) leaves its binds below the
# cached roots, one of them onto a checkout since deleted, where a new bind fails ("No such
# file or directory"). Holding the lock, this run is the only user: undo them, innermost first.
awk -v c="$cache/" 'index($2, c) == 1 { print length($2), $2 }' /proc/mounts | sort -rn | cut -d' ' -f2- |
    while read -r target; do umount -l "$target" 2>/dev/null || true; done

# The build root, made once per package list (a new list makes it again).
stamp="$build_packages $mirror"
if [[ ! -f $cache/root.ready || $(cat "$cache/root.ready") != "$stamp" ]]; then
    grep -q " $root/" /proc/mounts && fail "something is still mounted below $root"
    say "debootstrap trixie with the build's packages (once; cached in $root)"
    rm -rf "$root" "$cache/root.ready"
    debootstrap --variant=minbase --include="$build_packages" trixie "$root" "$mirror" >&2 \
        || fail "debootstrap trixie failed"
    chmod 755 "$root"
    # SwiftPM fetches packages through git: this machine's URL rewrites (its package mirror),
    # and the checkout is owned by someone else than root in the chroot.
    { sed -n '/^\[url /,/^\[/p' /etc/gitconfig 2>/dev/null | sed '$ { /^\[/d }' || true
      printf '[safe]\n\tdirectory = *\n'; } > "$root/etc/gitconfig"
    echo "$stamp" > "$cache/root.ready"
fi
# Binds the checkout (at /src), the build folders (/build), the toolchain and the package
# mirror (read-only) into the build root; proc and dev only while something runs there.
bind_sources() {
    local dir
    mkdir -p "$root/src" "$root/build" "$root/opt/swift"
    mount_in --bind "$checkout" "$root/src"
    mount_in --bind "$builds" "$root/build"
    mount_in --bind -o ro "$toolchain" "$root/opt/swift"
    for dir in $(sed -n 's/^\[url "\(\/[^"]*\)"\]/\1/p' "$root/etc/gitconfig"); do
        mkdir -p "$root$dir"
        mount_in --bind -o ro "$dir" "$root$dir"
    done
}
in_root() {  # COMMAND…: run in the build root, in /src
    chroot "$root" /usr/bin/env -i PATH=/opt/swift/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb QUESTBOX_RELEASE_DIR=/build/release-static \
        sh -c 'cd /src && exec "$@"' sh "$@"
}
bind_sources
mount_in -t proc proc "$root/proc"
mount_in --bind /dev "$root/dev"
mount_in --bind /dev/pts "$root/dev/pts"  # script(1) in the pty test needs a terminal
cp /etc/resolv.conf "$root/etc/resolv.conf"
say "$(in_root sh -c '. /etc/os-release && echo "$PRETTY_NAME"'), libgpiod $(in_root pkg-config --modversion libgpiod), $(in_root swift --version 2>/dev/null | head -n 1)"

# 1. The unit suite, built and run on trixie.
say "building and running the unit tests"
in_root swift build --build-tests -Xswiftc -warnings-as-errors --scratch-path /build/debug >&2 \
    || fail "the build with tests failed on trixie"
in_root swift test --skip-build --scratch-path /build/debug > "$cache/unit-tests.log" 2>&1 \
    || { tail -n 60 "$cache/unit-tests.log" >&2; fail "unit tests failed on trixie (all: $cache/unit-tests.log)"; }
summary=$(grep -E "^(✔|✘) Test run with" "$cache/unit-tests.log" | tail -n 1)
say "${summary:-unit tests passed}"

# 2. The trixie package.
say "building the trixie package"
rm -rf "$builds/deb"
deb_in_root=$(in_root scripts/package-deb.sh /build/deb) || fail "scripts/package-deb.sh failed on trixie"
deb=$builds/${deb_in_root#/build/}
[[ -f $deb ]] || fail "no package at $deb"
depends=$(dpkg-deb -f "$deb" Depends)
grep -Eq '(^|, )libgpiod3( |,|$)' <<<"$depends" || fail "the trixie package does not depend on libgpiod3: $depends"
! grep -q 'libgpiod2' <<<"$depends" || fail "the trixie package depends on libgpiod2 (1.6): $depends"
needed=$(readelf -d "$builds/release-static/release/questbox" | sed -n 's/.*(NEEDED).*\[\(libgpiod[^]]*\)\].*/\1/p')
[[ $needed == "libgpiod.so.3" ]] || fail "questbox needs '${needed:-no libgpiod}', not libgpiod.so.3 alone"
say "lintian $(basename "$deb")"
lintian --fail-on error,warning "$deb" 2>&1 | grep -v "running with root privileges" >&2 || true
lintian --fail-on error,warning "$deb" >/dev/null 2>&1 || fail "lintian reports errors or warnings on the trixie package (above)"
# The VM mounts its own proc and dev over the root; the host's are not shared with it.
umount -l "$root/dev/pts" "$root/dev" "$root/proc"

# 3. Installed with apt-get in a fresh trixie root, as on a Pi: only Debian's packages.
minbase=$cache/trixie-minbase.tar
if [[ ! -f $minbase ]]; then
    say "debootstrap a plain trixie (once; cached in $minbase)"
    base=$(mktemp -d /tmp/questbox-trixie-base.XXXXXX)
    fresh+=("$base")
    chmod 755 "$base"
    debootstrap --variant=minbase trixie "$base" "$mirror" >&2 || fail "debootstrap of a plain trixie failed"
    tar -C "$base" -cf "$minbase.tmp" . && mv "$minbase.tmp" "$minbase"
fi
plain=$(mktemp -d /tmp/questbox-trixie-plain.XXXXXX)
fresh+=("$plain")
tar -C "$plain" -xf "$minbase"
chmod 755 "$plain"
mount_in -t proc proc "$plain/proc"
mount_in --bind /dev "$plain/dev"
cp /etc/resolv.conf "$plain/etc/resolv.conf"
cp "$deb" "$plain/tmp/"
in_plain() { chroot "$plain" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
say "apt-get install ./$(basename "$deb") in a fresh trixie root"
in_plain apt-get update -qq >&2
in_plain sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb")" > "$cache/install.log" 2>&1 \
    || { cat "$cache/install.log" >&2; fail "apt-get install of the trixie package failed in a fresh trixie root"; }
in_plain dpkg-query -W -f='${Status}' libgpiod3 | grep -q "install ok installed" || fail "installing the package did not bring libgpiod3"
[[ $(in_plain questbox --version) == "$(dpkg-deb -f "$deb" Version) ($(dpkg-deb -f "$deb" Architecture))" ]] || fail "questbox --version is not the package's version"
in_plain sh -c "cd / && questbox boards list" | grep -q "^rpi5 — .*(/usr/share/questbox/boards/rpi5.yaml)" || fail "boards list on trixie lacks the installed rpi5"
in_plain sh -c "cd / && questbox routine import /usr/share/doc/questbox/examples/example-routine.json --data /tmp/try >/dev/null && questbox simulate --events /usr/share/doc/questbox/examples/example-quest.events --data /tmp/try" > "$cache/quest.txt" 2>&1 \
    || { cat "$cache/quest.txt" >&2; fail "simulate --events failed with the installed trixie package"; }
grep -q "estimations\? saved" "$cache/quest.txt" || { cat "$cache/quest.txt" >&2; fail "the simulated quest did not finish on trixie"; }
umount -l "$plain/dev" "$plain/proc"

# 4. The HIL scenarios in the VM booted over the build root (trixie's bash, python3, kmod and
# libraries; this machine's kernel), with the program the package was made from.
Tests/HIL/prepare.sh
scenarios=("$@")
((${#scenarios[@]})) || scenarios=(doctor quest bounce)
failed=0
for s in "${scenarios[@]}"; do
    HIL_ROOTFS=$root HIL_CWD=/src Tests/HIL/vm.sh -- env HIL_GPIO_API=2 Tests/HIL/guest/scenarios /build/release-static/release "$s" \
        || failed=$((failed + 1))
done
echo "trixie: unit tests, package ($(dpkg-deb -f "$deb" Version), Depends on libgpiod3) installed in a fresh trixie root, ${#scenarios[@]} HIL scenario(s) with its program booted over trixie, $failed failed"
((failed == 0))
