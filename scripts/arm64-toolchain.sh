#!/usr/bin/env bash
# The arm64 cross toolchain (#50), from Debian's packages alone, cached in a folder keyed by
# its pinned versions under $QUESTBOX_ARM64_CACHE (default /tmp/questbox-arm64):
#   sid/          a Debian sid root (debootstrap) with swiftlang $ARM64_SWIFTLANG for amd64:
#                 the compiler (trixie's Swift is too old, and no sid package goes on the host)
#   sid/sysroot/  a Debian trixie arm64 root, unpacked and never run: the C libraries the box
#                 links, and the aarch64 Swift runtime of the very same swiftlang build
#   sid/sdk/      the Swift SDK bundle that names it for SwiftPM (--swift-sdk questbox-arm64)
# Sourced (scripts/package-deb.sh --arch arm64): `arm64_prepare` makes what is missing, and
# `in_sid COMMAND…` runs a command in the sid root, in this checkout (bound at the same path),
# with mounts that live in a mount namespace of its own: they vanish with it, however the
# command ends. Run alone, it prepares and prints the cache folder.
set -euo pipefail

# The compiler (amd64) and the runtime (arm64) must be the same build: bump them together.
ARM64_SWIFTLANG=6.2.3-1+b1
ARM64_SUITE=trixie
# 3: the runtime's shared libraries too (the unit tests link them), without the overlay whose
# library is missing.
ARM64_RECIPE=3
ARM64_MIRROR=${QUESTBOX_ARM64_MIRROR:-http://deb.debian.org/debian}
ARM64_CACHE=${QUESTBOX_ARM64_CACHE:-/tmp/questbox-arm64}/swiftlang-$ARM64_SWIFTLANG-$ARM64_SUITE
arm64_root=$ARM64_CACHE/sid
# Paths as the compiler sees them inside the sid root.
arm64_sysroot=/sysroot
arm64_sdks=/sdk
# What the box links, with headers, for arm64: libgpiod 2.x, ALSA, SQLite, libmosquitto,
# curl (push), espeak-ng (the voice), and the C and C++ runtimes the Swift runtime needs.
ARM64_SYSROOT_PACKAGES=libc6-dev,libstdc++-14-dev,libgcc-14-dev,libgpiod-dev,libasound2-dev,libsqlite3-dev,libcurl4-openssl-dev,libmosquitto-dev,libespeak-ng-dev,zlib1g-dev,libxml2-dev
arm64_checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

arm64_say() { echo "arm64: $*" >&2; }
arm64_fail() { echo "arm64: $*" >&2; exit 1; }

# apt with a configuration of its own (sid, amd64 and arm64), never the host's lists or status.
arm64_apt() {
    APT_CONFIG=$ARM64_CACHE/apt/apt.conf "$@"
}

arm64_prepare() {
    mkdir -p "$ARM64_CACHE"
    # One preparation at a time; the lock is let go once the toolchain is there (a script that
    # prepares and then runs another that prepares again must not wait for itself).
    exec 8> "$ARM64_CACHE/lock"
    flock 8
    arm64_prepare_locked
    exec 8>&-
}

arm64_prepare_locked() {
    # The steps' recipe: a change to what a step makes bumps it, and a cache made before redoes it.
    [[ -f $ARM64_CACHE/ready && $(cat "$ARM64_CACHE/ready") == "$ARM64_RECIPE" ]] && return 0
    local started=$SECONDS
    # debootstrap from the host's Debian; qemu-user-static runs what is built (tests, man pages).
    install_missing_packages debootstrap qemu-user-static binutils-aarch64-linux-gnu
    arm64_pin_check
    arm64_make_sid
    arm64_make_sysroot
    arm64_add_runtime
    arm64_make_sdk
    echo "$ARM64_RECIPE" > "$ARM64_CACHE/ready"
    arm64_say "toolchain ready in $((SECONDS - started)) s ($(du -sh "$ARM64_CACHE" | cut -f1) in $ARM64_CACHE)"
}

# An apt of its own in DIR (its lists, cache and status; never the host's): SUITE from the
# mirror for the architectures given, the first one native. Use it with APT_CONFIG=DIR/apt.conf.
arm64_apt_dir() {  # DIR SUITE ARCH…
    local apt=$1 suite=$2 arch list=
    shift 2
    mkdir -p "$apt/state/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d" "$apt/prefs.d" "$apt/debs"
    : > "$apt/state/status"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $ARM64_MIRROR $suite main" > "$apt/sources.list"
    for arch in "$@"; do list+="\"$arch\"; "; done
    cat > "$apt/apt.conf" <<EOF
Dir::State "$apt/state";
Dir::State::status "$apt/state/status";
Dir::Cache "$apt/cache";
Dir::Etc::sourcelist "$apt/sources.list";
Dir::Etc::sourceparts "$apt/sources.list.d";
Dir::Etc::preferencesparts "$apt/prefs.d";
APT::Architecture "$1";
APT::Architectures { $list};
Acquire::Languages "none";
APT::Sandbox::User "root";
// The archive served here is a snapshot whose Release files have expired.
Acquire::Check-Valid-Until "false";
EOF
}

# sid's swiftlang must still be the pinned build, for amd64 and arm64 alike.
arm64_pin_check() {
    local apt=$ARM64_CACHE/apt
    arm64_apt_dir "$apt" sid amd64 arm64
    arm64_apt apt-get update -qq >&2 || arm64_fail "apt-get update for sid failed"
    local arch have
    for arch in amd64 arm64; do
        have=$(arm64_apt apt-cache show "swiftlang:$arch" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
        [[ $have == "$ARM64_SWIFTLANG" ]] || arm64_fail "sid has swiftlang:$arch ${have:-none}, pinned $ARM64_SWIFTLANG: bump ARM64_SWIFTLANG in scripts/arm64-toolchain.sh (compiler and runtime together)"
    done
    # swiftlang:arm64 has the modules and static libraries, libswiftlang:arm64 the shared ones.
    (cd "$apt/debs" && rm -f ./*.deb && arm64_apt apt-get download -qq "swiftlang:arm64=$ARM64_SWIFTLANG" "libswiftlang:arm64=$ARM64_SWIFTLANG") >&2 \
        || arm64_fail "downloading swiftlang:arm64 and libswiftlang:arm64 $ARM64_SWIFTLANG failed"
}

arm64_make_sid() {
    [[ -f $ARM64_CACHE/sid.ready ]] && return 0
    arm64_say "debootstrap sid with swiftlang $ARM64_SWIFTLANG (the compiler, amd64)"
    rm -rf "$arm64_root"
    debootstrap --variant=minbase --include=swiftlang,libc6-dev,pkgconf,git,ca-certificates,file \
        sid "$arm64_root" "$ARM64_MIRROR" > "$ARM64_CACHE/debootstrap-sid.log" 2>&1 \
        || { tail -n 20 "$ARM64_CACHE/debootstrap-sid.log" >&2; arm64_fail "debootstrap sid failed (log: $ARM64_CACHE/debootstrap-sid.log)"; }
    local have
    have=$(chroot "$arm64_root" dpkg-query -W -f='${Version}' swiftlang)
    [[ $have == "$ARM64_SWIFTLANG" ]] || arm64_fail "the sid root has swiftlang $have, pinned $ARM64_SWIFTLANG"
    # SwiftPM fetches the dependencies through git: this machine's URL rewrites (its package
    # mirror, bound read-only by in_sid), and a checkout owned by someone else.
    { sed -n '/^\[url /,/^\[/p' /etc/gitconfig 2>/dev/null | sed '$ { /^\[/d }' || true
      printf '[safe]\n\tdirectory = *\n'; } > "$arm64_root/etc/gitconfig"
    rm -rf "$arm64_root/var/cache/apt/archives/"*.deb
    touch "$ARM64_CACHE/sid.ready"
}

arm64_make_sysroot() {
    local sysroot=$arm64_root$arm64_sysroot
    [[ -f $ARM64_CACHE/sysroot.ready ]] && return 0
    arm64_say "the $ARM64_SUITE arm64 sysroot (unpacked, never run)"
    rm -rf "$sysroot"
    # --foreign only downloads and unpacks the essential set; the rest is unpacked below.
    debootstrap --arch=arm64 --foreign --variant=minbase --include="$ARM64_SYSROOT_PACKAGES" \
        "$ARM64_SUITE" "$sysroot" "$ARM64_MIRROR" > "$ARM64_CACHE/debootstrap-sysroot.log" 2>&1 \
        || { tail -n 20 "$ARM64_CACHE/debootstrap-sysroot.log" >&2; arm64_fail "debootstrap $ARM64_SUITE arm64 failed"; }
    local deb
    for deb in "$sysroot"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
    # The package list, for dpkg-shlibdeps (arm64_admin_dir) and the record.
    mkdir -p "$ARM64_CACHE/sysroot-debs"
    mv "$sysroot"/var/cache/apt/archives/*.deb "$ARM64_CACHE/sysroot-debs/"
    touch "$ARM64_CACHE/sysroot.ready"
}

# The aarch64 Swift runtime and modules (swiftlang:arm64 keeps them under usr/libexec/swift)
# into the sysroot: with -sdk the driver takes swiftrt.o from SDK/usr/lib/swift_static.
arm64_add_runtime() {
    local sysroot=$arm64_root$arm64_sysroot unpacked=$ARM64_CACHE/swiftlang-arm64
    rm -rf "$unpacked" && mkdir -p "$unpacked"
    dpkg-deb -x "$ARM64_CACHE"/apt/debs/swiftlang_*_arm64.deb "$unpacked"
    dpkg-deb -x "$ARM64_CACHE"/apt/debs/libswiftlang_*_arm64.deb "$unpacked"
    local lib=$unpacked/usr/libexec/swift/lib
    [[ -d $lib/swift/linux/aarch64 && -d $lib/swift_static/linux && -f $lib/swift/linux/libTesting.so ]] \
        || arm64_fail "swiftlang:arm64 has no aarch64 runtime under usr/libexec/swift/lib"
    # lib/clang too: swift/clang and swift_static/clang point there (the C compiler's own headers).
    rm -rf "$sysroot/usr/lib/swift" "$sysroot/usr/lib/swift_static" "$sysroot/usr/lib/clang"
    cp -a "$lib/swift" "$lib/swift_static" "$lib/clang" "$sysroot/usr/lib/"
    # Debian's arm64 packages have the Testing+Foundation overlay's module but not its library
    # (lib_Testing_Foundation.so): a test that imports both would not link. Not offered, then;
    # nothing the tests use comes from it (attachments of Foundation's types).
    if [[ ! -f $sysroot/usr/lib/swift/linux/lib_Testing_Foundation.so ]]; then
        rm -f "$sysroot/usr/lib/swift/linux/Testing.swiftcrossimport/Foundation.swiftoverlay"
    fi
    rm -rf "$unpacked"
}

arm64_make_sdk() {
    local bundle=$arm64_root$arm64_sdks/questbox-arm64.artifactbundle
    rm -rf "$bundle" && mkdir -p "$bundle/questbox-arm64"
    # Debian's compiler calls its host x86_64-pc-linux-gnu: with only -unknown- SwiftPM finds no SDK.
    cat > "$bundle/info.json" <<EOF
{"schemaVersion": "1.0", "artifacts": {"questbox-arm64": {"type": "swiftSDK", "version": "$ARM64_SWIFTLANG",
 "variants": [{"path": "questbox-arm64", "supportedTriples": ["x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu"]}]}}}
EOF
    cat > "$bundle/questbox-arm64/swift-sdk.json" <<EOF
{"schemaVersion": "4.0", "targetTriples": {"aarch64-unknown-linux-gnu": {
  "sdkRootPath": "$arm64_sysroot",
  "swiftResourcesPath": "$arm64_sysroot/usr/lib/swift",
  "swiftStaticResourcesPath": "$arm64_sysroot/usr/lib/swift_static",
  "toolsetPaths": ["toolset.json"]}}}
EOF
    # lld links for aarch64 (a "linker" entry in the toolset fails: "invalid linker name").
    echo '{"schemaVersion": "1.0", "swiftCompiler": {"extraCLIOptions": ["-use-ld=lld"]}}' > "$bundle/questbox-arm64/toolset.json"
}

# COMMAND… in the sid root, in this checkout, with /proc, /dev, the checkout and the package
# mirror bound in a private mount namespace (gone with the command, whatever ends it).
# $ARM64_BINDS: more folders bound, "HOST=INSIDE …" (the arm64 kernel's headers, Tests/HIL).
in_sid() {
    local mirrors
    mirrors=$(sed -n 's/^\[url "\(\/[^"]*\)"\]/\1/p' "$arm64_root/etc/gitconfig" | tr '\n' ' ')
    unshare --mount --propagation private /usr/bin/env ROOT="$arm64_root" CHECKOUT="$arm64_checkout" MIRRORS="$mirrors" \
        SYSROOT="$arm64_sysroot" BINDS="${ARM64_BINDS:-}" bash -euo pipefail -c '
        mount -t proc proc "$ROOT/proc"
        mount --bind /dev "$ROOT/dev"
        mkdir -p "$ROOT$CHECKOUT"
        mount --bind "$CHECKOUT" "$ROOT$CHECKOUT"
        for dir in $MIRRORS; do mkdir -p "$ROOT$dir" && mount --bind -o ro "$dir" "$ROOT$dir"; done
        for pair in $BINDS; do mkdir -p "$ROOT${pair#*=}" && mount --bind "${pair%%=*}" "$ROOT${pair#*=}"; done
        cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
        exec chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/usr/sbin:/bin:/sbin HOME=/root LANG=C.UTF-8 TERM=dumb \
            PKG_CONFIG_PATH="$SYSROOT/usr/lib/aarch64-linux-gnu/pkgconfig:$SYSROOT/usr/share/pkgconfig" \
            PKG_CONFIG_SYSROOT_DIR="$SYSROOT" \
            sh -c "cd \"\$0\" && exec \"\$@\"" "$CHECKOUT" "$@"' in_sid "$@"
}

# What building the arm64 kernel's modules needs in the sid root (Tests/HIL/prepare-arm64.sh):
# the cross compiler of the kernel's own major version (its headers call aarch64-linux-gnu-gcc-14),
# make, and pahole for the modules' BTF. Installed once, beside the toolchain.
arm64_kernel_tools() {
    [[ -f $ARM64_CACHE/kernel-tools.ready ]] && return 0
    arm64_say "the cross compiler for the arm64 kernel's modules (gcc-14-aarch64-linux-gnu, in the sid root)"
    in_sid sh -c 'apt-get -o Acquire::Check-Valid-Until=false update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-14-aarch64-linux-gnu make dwarves' \
        > "$ARM64_CACHE/kernel-tools.log" 2>&1 || { tail -n 20 "$ARM64_CACHE/kernel-tools.log" >&2; arm64_fail "installing the kernel's cross compiler in the sid root failed"; }
    rm -rf "$arm64_root/var/cache/apt/archives/"*.deb
    touch "$ARM64_CACHE/kernel-tools.ready"
}

# Running an arm64 system's own programs here (the HIL guest's root, the SD-card image): under
# qemu-user, as root in user, mount and pid namespaces of their own (uids and gids 0-65535
# mapped to themselves) with a binfmt_misc of their own, so the host's binfmt_misc is never
# touched and every mount is gone with the command, however it ends.
arm64_userns() {  # COMMAND…
    local fifo pid mine child=
    fifo=$(mktemp -u) && mkfifo "$fifo"
    unshare --user --mount --pid --fork --propagation private bash -c 'read -r _ < "$0"; exec "$@"' "$fifo" "$@" &
    pid=$!
    mine=$(readlink /proc/self/ns/user)
    # Once the child is in its namespace (unshare forks after unsharing), map its ids.
    for _ in $(seq 500); do
        child=$(pgrep -P "$pid" | head -n 1 || true)
        [[ -n $child && $(readlink "/proc/$child/ns/user" 2>/dev/null) != "$mine" ]] && break
        sleep 0.01
    done
    echo '0 0 65536' > "/proc/$child/uid_map" && echo '0 0 65536' > "/proc/$child/gid_map" || { kill "$pid"; rm -f "$fifo"; return 1; }
    echo go > "$fifo"
    rm -f "$fifo"
    wait "$pid"
}

# ROOT COMMAND…: COMMAND chrooted in ROOT, an arm64 Debian system, with its /proc and /dev.
# The F flag opens qemu-aarch64-static now, so it runs inside the chroot too. Device files
# cannot be made in a user namespace: container=lxc is how debootstrap skips its check that
# they can. Extra environment for COMMAND: $ARM64_ROOT_ENV ("NAME=VALUE …").
arm64_in_root() {
    local root=$1 magic mask
    shift
    magic='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
    mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
    arm64_userns /usr/bin/env ROOT="$root" EXTRA="${ARM64_ROOT_ENV:-}" \
        REG=":questbox-aarch64:M::$magic:$mask:$(command -v qemu-aarch64-static):F" bash -euo pipefail -c '
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
        echo "$REG" > /proc/sys/fs/binfmt_misc/register
        mount -t proc proc "$ROOT/proc"
        mount --rbind /dev "$ROOT/dev"
        exec chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 container=lxc $EXTRA "$@"' arm64_in_root "$@"
}

# ROOT: debootstrap's second stage (dpkg and the maintainer scripts) of a --foreign arm64 root.
# It reads the suite's whole package list (56 MB) with perl, several times, a minute each under
# emulation; it needs only the packages the first stage fetched, so the list is cut to those.
arm64_second_stage() {
    local root=$1
    python3 - "$root/debootstrap/debpaths" "$root"/var/lib/apt/lists/*_Packages <<'PY'
import sys
fetched = {line.split()[0] for line in open(sys.argv[1]) if line.strip()}
for path in sys.argv[2:]:
    stanzas = open(path, encoding="utf-8").read().split("\n\n")
    kept = [s for s in stanzas if s.startswith("Package: ") and s.split("\n", 1)[0][9:] in fetched]
    open(path, "w", encoding="utf-8").write("\n\n".join(kept) + "\n\n")
PY
    arm64_in_root "$root" /debootstrap/debootstrap --second-stage
}

# The arm64 build folder (dependencies and this project's modules, cached like .build/release-static).
ARM64_SCRATCH=$arm64_checkout/.build/arm64-release

# PRODUCT…: the release build for arm64 with the project's own flags (setup.sh's RELEASE_FLAGS),
# the Swift runtime and libstdc++ linked in as on amd64; prints the folder of the programs.
arm64_build() {
    local static_cxx=$ARM64_SCRATCH/static-c++ product
    mkdir -p "$static_cxx"
    # The driver asks for -lstdc++ itself: a linker script of that name, found first, names the archive.
    printf 'INPUT(%s)\n' "$arm64_sysroot/usr/lib/gcc/aarch64-linux-gnu/14/libstdc++.a" > "$static_cxx/libstdc++.so"
    for product in "$@"; do
        # Linked afresh (seconds), as on amd64: SwiftPM takes one linked with other flags as up to date.
        rm -f "$ARM64_SCRATCH/aarch64-unknown-linux-gnu/release/$product"
        in_sid swift build "${RELEASE_FLAGS[@]}" --swift-sdks-path "$arm64_sdks" --swift-sdk questbox-arm64 \
            --scratch-path "$ARM64_SCRATCH" -Xlinker -L"$static_cxx" --product "$product" >&2 \
            || arm64_fail "the arm64 build of $product failed"
    done
    echo "$ARM64_SCRATCH/aarch64-unknown-linux-gnu/release"
}

# How an arm64 program runs here: under qemu-user, with the sysroot's libraries.
ARM64_RUNNER=(qemu-aarch64-static -L "$arm64_root$arm64_sysroot")
# PROGRAM ARGS…
arm64_run() {
    "${ARM64_RUNNER[@]}" "$@"
}

# The pure modules' unit tests (Package.swift's QUESTBOX_PURE_MODULES: QuestCore, ScreenRender,
# RoutineFormat, BoxProtocol, BoardProfile) built for arm64 in debug, then run under qemu-user with the
# runtime's shared libraries from the sysroot. Prints Swift Testing's own lines.
arm64_unit_tests() {
    local scratch=$arm64_checkout/.build/arm64-tests
    in_sid env QUESTBOX_PURE_MODULES=1 swift build --build-tests --swift-sdks-path "$arm64_sdks" --swift-sdk questbox-arm64 \
        --scratch-path "$scratch" >&2 || arm64_fail "the arm64 build of the pure modules' tests failed"
    # The runtime's FoundationXML (BoardProfile's tests read the wiring SVG back) needs the
    # libxml2 sid's libswiftlang:arm64 depends on (libxml2.so.16; trixie has .so.2): beside the
    # sysroot, for the tests only (the programs link no FoundationXML).
    local libs=$ARM64_CACHE/test-libs
    if [[ ! -f $libs/ready ]]; then
        rm -rf "$libs" && mkdir -p "$libs/debs"
        (cd "$libs/debs" && arm64_apt apt-get download -qq libxml2-16:arm64) >&2 || arm64_fail "downloading libxml2-16:arm64 failed"
        dpkg-deb -x "$libs"/debs/libxml2-16_*.deb "$libs/root"
        touch "$libs/ready"
    fi
    # The loader reads the path in the emulated system, where -L puts the sysroot at / (and
    # falls back to this machine's paths).
    LD_LIBRARY_PATH=/usr/lib/swift/linux:$libs/root/usr/lib/aarch64-linux-gnu arm64_run "$scratch/aarch64-unknown-linux-gnu/debug/TimeQuestBoxPackageTests.xctest" \
        --testing-library swift-testing
}

# dpkg-shlibdeps for arm64 programs: a dpkg database made from the sysroot's packages (their
# control fields, shlibs, symbols and file lists, the paths under the sysroot) stands in for
# an arm64 system's.
arm64_shlibdeps() {
    local admin=$ARM64_CACHE/dpkg-admin sysroot=$arm64_root$arm64_sysroot
    if [[ ! -f $admin/ready ]]; then
        local deb pkg control
        rm -rf "$admin" && mkdir -p "$admin/info" "$admin/updates"
        echo 1 > "$admin/info/format"
        : > "$admin/status"
        control=$(mktemp -d)
        for deb in "$ARM64_CACHE"/sysroot-debs/*.deb; do
            pkg=$(dpkg-deb -f "$deb" Package)
            # Without Multi-Arch, dpkg names the files PKG.list rather than PKG:arm64.list.
            { dpkg-deb -f "$deb" | grep -v '^Multi-Arch:'; echo "Status: install ok installed"; echo; } >> "$admin/status"
            rm -rf "$control" && dpkg-deb -e "$deb" "$control"
            for file in shlibs symbols; do [[ ! -f $control/$file ]] || cp "$control/$file" "$admin/info/$pkg.$file"; done
            dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' | grep -v '^/*$' \
                | awk -v r="$sysroot" '{ print r $0 } /^\/lib\// { print r "/usr" $0 }' > "$admin/info/$pkg.list"
        done
        rm -rf "$control"
        touch "$admin/ready"
    fi
    DEB_HOST_ARCH=arm64 DEB_HOST_MULTIARCH=aarch64-linux-gnu DEB_HOST_GNU_TYPE=aarch64-linux-gnu \
        dpkg-shlibdeps --admindir="$admin" -l"$sysroot/usr/lib/aarch64-linux-gnu" "$@"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    cd "$arm64_checkout"
    source scripts/setup.sh
    arm64_prepare
    echo "$ARM64_CACHE"
fi
