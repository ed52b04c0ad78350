#!/usr/bin/env bash
# Builds the Debian package questbox_<version>_<arch>.deb from a release build with the Swift
# runtime linked statically (the Pi needs no Swift installed):
#   scripts/package-deb.sh [--arch arm64] [OUT_DIR]   (default: .build/deb; prints the package's path)
# --arch arm64 on an amd64 machine cross-builds the Pi's package (scripts/arm64-toolchain.sh:
# Debian sid's Swift in a root of its own, a trixie arm64 sysroot; nothing goes on the host).
# /usr/bin/questbox, questbox-web and questbox-link; boards, sounds and the web app's templates under
# /usr/share/questbox/; the services; a sysusers.d user (gpio, audio, i2c) and a tmpfiles.d
# folder for /var/lib/questbox; /etc/default/questbox (the board) as a conffile. Depends is
# computed by dpkg-shlibdeps, so a bookworm build depends on libgpiod2 (libgpiod 1.6) and a
# trixie build on libgpiod3 (2.x). The version is scripts/version.sh's.
# Updates (docs/updates.md): --updates URI --updates-keyring FILE (or $QUESTBOX_UPDATES_URI and
# $QUESTBOX_UPDATES_KEYRING) make the package install its apt source for the repository at URI
# (scripts/apt-repo.sh), trusted for that source alone with the keyring FILE (`Signed-By:`):
# /etc/apt/sources.list.d/questbox.sources, /usr/share/keyrings/questbox-archive-keyring.pgp.
# Without them the package has no source and takes no updates (a developer's build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
install_missing_packages dpkg-dev patchelf
arch=$(dpkg --print-architecture)
out_dir=.build/deb
updates_uri=${QUESTBOX_UPDATES_URI:-} updates_keyring=${QUESTBOX_UPDATES_KEYRING:-}
while (($#)); do
    case $1 in
        --arch) arch=${2:?--arch needs an architecture}; shift 2 ;;
        --arch=*) arch=${1#--arch=}; shift ;;
        --updates) updates_uri=${2:?--updates needs the address of the repository}; shift 2 ;;
        --updates-keyring) updates_keyring=${2:?--updates-keyring needs the public keyring file}; shift 2 ;;
        -*) echo "package: unknown option $1" >&2; exit 2 ;;
        *) out_dir=$1; shift ;;
    esac
done
# The address goes into a deb822 file as it is: one line, a scheme apt fetches, nothing else.
if [[ -n $updates_uri || -n $updates_keyring ]]; then
    [[ -n $updates_uri && -n $updates_keyring ]] \
        || { echo "package: --updates and --updates-keyring go together (the address and the key that signs it)" >&2; exit 2; }
    [[ $updates_uri =~ ^(https?|file):[A-Za-z0-9._~:/@%+=,-]+$ && ${#updates_uri} -le 300 ]] \
        || { echo "package: --updates '$updates_uri': not an http(s) or file address apt can fetch" >&2; exit 2; }
    install_missing_packages gnupg
    [[ -f $updates_keyring && ! -L $updates_keyring && $(stat -c %s "$updates_keyring") -le 65536 ]] \
        || { echo "package: --updates-keyring $updates_keyring: not a regular file of at most 64 KiB" >&2; exit 2; }
    # apt reads a .pgp keyring as binary OpenPGP; a secret key must never ship on a box.
    check_home=$(mktemp -d)
    keys=$(gpg --homedir "$check_home" --batch --quiet --no-tty --with-colons --show-keys "$updates_keyring" 2>/dev/null || true)
    gpgconf --homedir "$check_home" --kill gpg-agent 2>/dev/null || true
    rm -rf "$check_home"
    if grep -q '^sec:' <<< "$keys"; then
        echo "package: --updates-keyring $updates_keyring holds a secret key: give the public keyring (questbox-archive-keyring.pgp)" >&2; exit 2
    elif ! grep -q '^pub:' <<< "$keys"; then
        echo "package: --updates-keyring $updates_keyring: no OpenPGP public key in it (scripts/apt-repo.sh --new-key makes one)" >&2; exit 2
    elif [[ $(head -c 5 "$updates_keyring") == ----- ]]; then
        echo "package: --updates-keyring $updates_keyring is armored: give the binary keyring (gpg --export, not --armor)" >&2; exit 2
    fi
fi
cross=
if [[ $arch != "$(dpkg --print-architecture)" ]]; then
    [[ $arch == arm64 && $(dpkg --print-architecture) == amd64 ]] \
        || { echo "package: --arch $arch: only arm64, cross-built on amd64" >&2; exit 2; }
    cross=arm64
    source scripts/arm64-toolchain.sh
    arm64_prepare
fi
out=$(realpath -m "$out_dir")
version=$(scripts/version.sh)
# The maintainer: $DEBFULLNAME <$DEBEMAIL>, else the newest commit's author.
maintainer="${DEBFULLNAME:-$(git log -1 --format=%an 2>/dev/null || echo "TimeQuest Box developers")} <${DEBEMAIL:-$(git log -1 --format=%ae 2>/dev/null || echo "questbox@example.org")}>"

echo "package: $arch release build of questbox, questbox-web and questbox-link (the first takes several minutes)" >&2
if [[ -z $cross ]]; then
    # Linked afresh every time (seconds): SwiftPM takes a program linked with other flags
    # (another linker, the runtime not linked in) as up to date.
    rm -f "$RELEASE_BIN/questbox" "$RELEASE_BIN/questbox-web" "$RELEASE_BIN/questbox-link"
    refresh_version_stamp "$RELEASE_DIR"
    for product in questbox questbox-web questbox-link; do swift build "${RELEASE_BUILD[@]}" --product "$product" >&2; done
    bin=$RELEASE_BIN
    checkouts=.build/checkouts
    strip_program() { strip "$@"; }
else
    refresh_version_stamp "$ARM64_SCRATCH"
    bin=$(arm64_build questbox questbox-web questbox-link)
    checkouts=$ARM64_SCRATCH/checkouts
    strip_program() { aarch64-linux-gnu-strip "$@"; }
fi
run_program() { if [[ -n $cross ]]; then arm64_run "$@"; else "$@"; fi; }
for program in questbox questbox-web questbox-link; do
    said=$(run_program "$bin/$program" --version 2>&1) || true
    if [[ $said != "$version ($arch)" ]]; then
        echo "package: $bin/$program --version says '$said', not the package's '$version ($arch)'" >&2
        exit 1
    fi
    if readelf -d "$bin/$program" | grep NEEDED | grep -Eq 'libswift|libFoundation|libdispatch|libBlocksRuntime'; then
        echo "package: $bin/$program needs the Swift runtime at run time (not linked statically)" >&2
        exit 1
    fi
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/questbox
install -d "$root/DEBIAN"
for program in questbox questbox-web questbox-link; do
    install -D -m 755 "$bin/$program" "$root/usr/bin/$program"
    strip_program --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/$program"
    # The toolchain's library path is useless on the Pi: the Swift runtime is linked in.
    patchelf --remove-rpath "$root/usr/bin/$program"
done
# Man pages from the programs' own help (scripts/manpage.py).
install -d "$root/usr/share/man/man1"
for program in questbox questbox-web questbox-link; do
    QUESTBOX_RUN_WITH=${cross:+${ARM64_RUNNER[*]}} python3 scripts/manpage.py "$bin/$program" "$program" "$version" | gzip -9n > "$root/usr/share/man/man1/$program.1.gz"
    chmod 644 "$root/usr/share/man/man1/$program.1.gz"
done
share=$root/usr/share/questbox
install -d "$share/boards" "$share/sounds" "$share/web"
install -m 644 Boards/*.yaml "$share/boards/"
install -m 644 Sounds/*.wav "$share/sounds/"
cp -r Sources/WebApp/Resources/templates Sources/WebApp/Resources/assets "$share/web/"
find "$share/web" -type d -exec chmod 755 {} + && find "$share/web" -type f -exec chmod 644 {} +
install -D -m 644 deploy/questbox.service "$root/usr/lib/systemd/system/questbox.service"
install -D -m 644 deploy/questbox-web.service "$root/usr/lib/systemd/system/questbox-web.service"
install -D -m 644 deploy/questbox-link.service "$root/usr/lib/systemd/system/questbox-link.service"
install -D -m 644 deploy/questbox.sysusers "$root/usr/lib/sysusers.d/questbox.conf"
install -D -m 644 deploy/questbox.tmpfiles "$root/usr/lib/tmpfiles.d/questbox.conf"
install -D -m 644 deploy/questbox.udev "$root/usr/lib/udev/rules.d/60-questbox.rules"
install -D -m 644 deploy/questbox.default "$root/etc/default/questbox"
conffiles=(/etc/default/questbox)
if [[ -n $updates_uri ]]; then
    install -D -m 644 "$updates_keyring" "$root/usr/share/keyrings/questbox-archive-keyring.pgp"
    install -d "$root/etc/apt/sources.list.d"
    sources=$(< deploy/debian/questbox.sources.in)
    printf '%s\n' "${sources//@URI@/"$updates_uri"}" > "$root/etc/apt/sources.list.d/questbox.sources"
    chmod 644 "$root/etc/apt/sources.list.d/questbox.sources"
    conffiles+=(/etc/apt/sources.list.d/questbox.sources)
fi
doc=$root/usr/share/doc/questbox
install -D -m 644 deploy/questbox-web.avahi.service "$doc/examples/questbox-web.avahi.service"
install -D -m 644 deploy/example-routine.json "$doc/examples/example-routine.json"
install -D -m 644 deploy/example-quest.events "$doc/examples/example-quest.events"

# copyright: this project, the Swift runtime and every package the build resolved (the
# programs link a subset of them statically). Apache-2.0 is named, not copied (Debian ships
# its text in /usr/share/common-licenses); other licences and every NOTICE are copied whole.
licence_of() {  # FILE: "Apache-2.0" or the file's text
    if grep -q "Apache License" "$1" && grep -q "END OF TERMS AND CONDITIONS" "$1"; then
        echo "License: Apache-2.0 (/usr/share/common-licenses/Apache-2.0)"
        # What follows the licence's appendix (Swift's Runtime Library Exception).
        sed -n '/^## Runtime Library Exception/,$p' "$1"
    else
        cat "$1"
    fi
}
{
    echo "TimeQuest Box"
    echo "Copyright 2026 the TimeQuest Box developers. The project has not chosen a licence yet."
    echo "Sounds/*.wav are made by the project's own recipe (Sounds/Recipe)."
    echo
    echo "Statically linked into /usr/bin/questbox, questbox-web and questbox-link: the Swift runtime and"
    echo "Foundation, and packages of this build's resolved graph (a subset of those listed below)."
    echo
    if [[ -z $cross ]]; then
        swift_root=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
        echo "== Swift runtime and Foundation (swift.org) =="
        licence_of "$swift_root/share/swift/LICENSE.txt"
    else
        echo "== Swift runtime and Foundation (swift.org, as Debian's swiftlang $ARM64_SWIFTLANG) =="
        cat "$arm64_root/usr/share/doc/swiftlang/copyright"
    fi
    for checkout in "$checkouts"/*/; do
        name=$(basename "$checkout")
        echo
        echo "== $name =="
        for file in "$checkout"LICENSE* "$checkout"NOTICE*; do
            [[ -f $file ]] && licence_of "$file"
        done
    done
    echo
    echo "== libyaml (embedded in Yams as CYaml) =="
    echo "Copyright (c) 2017-2020 Ingy döt Net; Copyright (c) 2006-2016 Kirill Simonov. MIT licence, the text as for Yams above."
} > "$stage/copyright"
install -m 644 "$stage/copyright" "$doc/copyright"
{
    echo "questbox ($version) unstable; urgency=medium"
    echo
    git log -n 20 --format='  * %s' 2>/dev/null | cut -c1-78 || echo "  * Built outside a git checkout."
    echo
    echo " -- $maintainer  $(git log -1 --format=%aD 2>/dev/null || date -R)"
} > "$stage/changelog.Debian"
gzip -9n -c "$stage/changelog.Debian" > "$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"
install -D -m 644 deploy/debian/lintian-overrides "$root/usr/share/lintian/overrides/questbox"

# Depends from the programs' shared libraries (dpkg-shlibdeps wants a debian/control).
mkdir -p "$stage/src/debian"
printf 'Source: questbox\n\nPackage: questbox\nArchitecture: any\n' > "$stage/src/debian/control"
shlibdeps=(dpkg-shlibdeps)
[[ -z $cross ]] || shlibdeps=(arm64_shlibdeps)
depends=$(cd "$stage/src" && "${shlibdeps[@]}" -O -e"$root/usr/bin/questbox" -e"$root/usr/bin/questbox-web" -e"$root/usr/bin/questbox-link" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[[ -n $depends ]] || { echo "package: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# The voice's library is opened when the box first speaks, libcrypto when a PIN or a form's
# token is first hashed (dlopen), so no program names them: by package (trixie's t64 name).
if [[ -n $cross ]]; then
    libssl=libssl3t64
else
    libssl=$(dpkg-query -S "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libcrypto.so.3" | cut -d: -f1)
fi
depends="$depends, libespeak-ng1, $libssl"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s|@MAINTAINER@|$maintainer|" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" deploy/debian/control.in > "$root/DEBIAN/control"
printf '%s\n' "${conffiles[@]}" > "$root/DEBIAN/conffiles"
for script in preinst postinst prerm postrm; do install -m 755 "deploy/debian/$script" "$root/DEBIAN/$script"; done
(cd "$root" && find usr etc -type f -exec md5sum {} + | sort -k 2) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb="$out/questbox_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
echo "$deb"
