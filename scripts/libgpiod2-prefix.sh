#!/usr/bin/env bash
# libgpiod 2.x, the library of current Raspberry Pi OS (trixie's libgpiod3), unpacked from
# Debian trixie's own packages into a folder on a bookworm machine, with a pkg-config file
# for it; nothing is installed on the machine.
#   scripts/libgpiod2-prefix.sh [DIR]     (default /tmp/questbox-libgpiod2)
# Prints the folder to put in PKG_CONFIG_PATH, then the one holding libgpiod.so.3 (for
# LD_LIBRARY_PATH). Kept between runs: a second call only prints.
set -euo pipefail
dir=$(realpath -m "${1:-/tmp/questbox-libgpiod2}")
if [[ -f $dir/ready ]]; then
    cat "$dir/ready"
    exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$dir/debs" "$dir/root"
# This machine's Debian mirror, from its apt sources (deb822 or one-line).
mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1 || true)
if [[ -z $mirror ]]; then
    mirror=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\// && $i !~ /security/) { print $i; exit } }' /etc/apt/sources.list 2>/dev/null || true)
fi
[[ -n $mirror ]] || { echo "libgpiod2: no Debian mirror in /etc/apt/sources.list(.d)" >&2; exit 1; }
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" > "$dir/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache::Archives=$dir/apt/archives"
          -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
echo "libgpiod2: trixie's libgpiod-dev and libgpiod3 from $mirror" >&2
apt-get "${apt_opts[@]}" update -qq >&2
(cd "$dir/debs" && apt-get "${apt_opts[@]}" download libgpiod-dev libgpiod3 >&2)
for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
so=$(find "$dir/root" -name 'libgpiod.so.3*' -type f | head -n 1)
[[ -n $so ]] || { echo "libgpiod2: no libgpiod.so.3 in trixie's packages" >&2; exit 1; }
libdir=$(dirname "$so")
pc=$libdir/pkgconfig/libgpiod.pc
[[ -f $pc ]] || { echo "libgpiod2: no libgpiod.pc in trixie's libgpiod-dev" >&2; exit 1; }
grep -q '^Version: 2\.' "$pc" || { echo "libgpiod2: $pc is not version 2.x" >&2; exit 1; }
mkdir -p "$dir/pkgconfig"
# -l:libgpiod.so.3 names the 2.x library by file: SwiftPM puts other packages'
# -L/usr/lib/<triplet> ahead of this folder, so a plain -lgpiod would link bookworm's
# libgpiod.so (1.6) whenever libgpiod-dev is installed, under the 2.x headers.
sed -e "s|^prefix=.*|prefix=$dir/root/usr|" -e 's|^Libs:.*|Libs: -L${libdir} -l:libgpiod.so.3|' "$pc" > "$dir/pkgconfig/libgpiod.pc"
grep -q '^Libs: .* -l:libgpiod.so.3$' "$dir/pkgconfig/libgpiod.pc" || { echo "libgpiod2: no Libs line in $pc" >&2; exit 1; }
printf '%s\n%s\n' "$dir/pkgconfig" "$libdir" > "$dir/ready"
cat "$dir/ready"
