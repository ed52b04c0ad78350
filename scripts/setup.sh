#!/usr/bin/env bash
# Installs what building and testing TimeQuest Box needs on a fresh Debian / Raspberry Pi OS
# machine, and nothing when it is already there. Sourced by run.sh and test.sh.
set -euo pipefail

# Debian packages the build links against (the list grows with the hardware modules).
APT_PACKAGES=(libsqlite3-dev libgpiod-dev libasound2-dev libmosquitto-dev libcurl4-openssl-dev libespeak-ng-dev pkg-config)

# Installs those of the named Debian packages that are not installed yet (other scripts that
# source this file call it for what they need beyond the build).
install_missing_packages() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    ((${#missing[@]})) || return 0
    echo "setup: installing ${missing[*]}" >&2
    local sudo_cmd=()
    [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
    # CI prepares its later stages beside the first ones (.ci/run): two scripts installing at
    # once wait for each other here, and for dpkg's own lock, rather than fail on it.
    (
        flock 8
        "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=900 update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}" >/dev/null
    ) 8> /tmp/questbox-apt.lock
}
install_missing_packages "${APT_PACKAGES[@]}"

# SwiftPM runs the version stamp's prebuild command (Plugins/VersionStamp) only when it reads
# the manifest again, so a build folder that last read it at another commit kept that
# commit's version: a package made from it carried a wrong `--version`. Writes the stamp of
# the build folder given afresh when the version moved; the build then compiles it again.
refresh_version_stamp() {  # SCRATCH
    local stamp
    for stamp in "$1"/plugins/outputs/*/BuildVersion/destination/VersionStamp/Generated/BuildVersionText.swift; do
        [[ -f $stamp ]] && "$(dirname "${BASH_SOURCE[0]}")/version.sh" --swift "$stamp"
    done
    return 0
}

if ! command -v swift >/dev/null 2>&1; then
    for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin "$HOME/.local/share/swiftly/bin"; do
        [[ -x "$dir/swift" ]] && export PATH="$dir:$PATH" && break
    done
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "setup: Swift 6.2 or newer is needed: install it from swift.org (or swiftly) and run again" >&2
    exit 1
fi
# The dependencies (Hummingbird 2.28, swift-log, swift-collections…) declare tools version 6.2:
# an older toolchain would fail deep in package resolution, so say it here in one line.
swift_version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -n 1)
if [[ -n $swift_version ]]; then
    read -r swift_major swift_minor <<< "$swift_version"
    if ((swift_major < 6 || (swift_major == 6 && swift_minor < 2))); then
        echo "setup: this is Swift $swift_major.$swift_minor; TimeQuest Box needs Swift 6.2 or newer (built and tested with 6.3): install it from swift.org (or swiftly)" >&2
        exit 1
    fi
fi

# The one release build every script shares (run.sh, the package, the figures): the Swift
# runtime linked in as on the Pi, in a folder of its own. Builds with other flags in the same
# folder rebuilt each other in turn (minutes each), and a non-static binary found there was
# once taken as up to date and packaged.
# $QUESTBOX_RELEASE_DIR puts it elsewhere (Tests/Trixie: a trixie build beside this machine's).
RELEASE_DIR=${QUESTBOX_RELEASE_DIR:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)/.build/release-static"}
# Linked by the toolchain's own lld on every Debian: bookworm's gold made read-only relocations
# (RELRO), but trixie (current Raspberry Pi OS) has no gold, and its ld.bfd left them out of a
# binary with the Swift runtime linked in (lintian: hardening-no-relro).
# More options keep the daemon small in memory (docs/daemon.md, memory): every function in a
# section of its own, so the linker lays out the ones the box runs together first
# (deploy/link/hot-code.order, made by scripts/hot-code.sh) and drops the ones nothing calls;
# relative relocations packed (DT_RELR, glibc 2.36 and later: bookworm, trixie, Raspberry Pi
# OS), which the loader otherwise reads as a 2.4 MB table at every start; and no exported
# symbols (deploy/link/local-symbols.map).
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# RELEASE_FLAGS are the same for every architecture (the arm64 cross build uses them too).
RELEASE_FLAGS=(-c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker relro
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections
    -Xlinker -z -Xlinker pack-relative-relocs
    -Xlinker --symbol-ordering-file="$REPO_ROOT/deploy/link/hot-code.order" -Xlinker --no-warn-symbol-ordering
    -Xlinker --version-script="$REPO_ROOT/deploy/link/local-symbols.map")
RELEASE_BUILD=("${RELEASE_FLAGS[@]}" --scratch-path "$RELEASE_DIR")
# The C++ library linked in too (the Swift runtime and ICU are C++; nothing else the box
# loads is), so only the parts used are in the program, laid out with the rest: the shared
# libstdc++ kept 1.5 MB resident. The toolchain's driver asks for -lstdc++ itself, so a linker
# script named libstdc++.so, found first, points it at the archive.
toolchain_clang=$(dirname "$(command -v swift)")/clang
static_cxx=$("$toolchain_clang" -print-file-name=libstdc++.a 2>/dev/null || true)
if [[ $static_cxx == /* && -f $static_cxx ]]; then
    mkdir -p "$RELEASE_DIR/static-c++"
    printf 'INPUT(%s)\n' "$static_cxx" >"$RELEASE_DIR/static-c++/libstdc++.so"
    RELEASE_BUILD+=(-Xlinker -L"$RELEASE_DIR/static-c++")
fi
# Where its programs are (SwiftPM's `release` link in that folder), as a full path.
RELEASE_BIN=$RELEASE_DIR/release
