#!/usr/bin/env bash
# Prepares the arm64 hardware-in-the-loop VM (#50) from Debian trixie's packages alone, cached
# in $HIL_ARM64_CACHE (default /tmp/questbox-hil-arm64), the way Tests/HIL/prepare.sh does
# for amd64:
#   kernel/   trixie's arm64 kernel and modules (the Image boots under qemu-system-aarch64),
#             plus gpio-sim, i2c-stub and vfb, which trixie's arm64 kernel leaves out, built
#             from its own sources with its own headers by the cross compiler of its own
#             major version (in the arm64 toolchain's sid root, scripts/arm64-toolchain.sh)
#   initramfs.gz  busybox (arm64) and the modules that reach the root over 9p
#   root/     a trixie arm64 system (debootstrap, its second stage under qemu-user in a
#             namespace of its own) with what the scenarios run (bash, python3,
#             kmod, procps) and what the box's package depends on, so that `apt-get install`
#             of the package needs no network in the guest
# Also builds the loopback recorder for aarch64 into .build/hil-arm64 (every time: it
# changes with the checkout). Idempotent: a prepared cache is reused while its recipe (this
# script, guest/init) is unchanged, compared by content, not by time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/../.." && pwd -P)
cd "$checkout"
source scripts/setup.sh
source scripts/arm64-toolchain.sh
cache=${HIL_ARM64_CACHE:-/tmp/questbox-hil-arm64}
say() { echo "hil-arm64: $*" >&2; }
fail() { echo "hil-arm64: $*" >&2; exit 1; }
mirror=$ARM64_MIRROR
# The guest's packages: the scenarios' tools (a broker for the figures' link), then the
# package's Depends (trixie names).
guest_packages=bash,python3,kmod,procps,mosquitto,mosquitto-clients,libgpiod3,libasound2t64,libsqlite3-0,libcurl4t64,libmosquitto1,libespeak-ng1,systemd
recipe=$(cat "$here/prepare-arm64.sh" "$here/guest/init" | sha256sum | cut -c1-16)

build_capture() {
    mkdir -p "$checkout/.build/hil-arm64"
    in_sid aarch64-linux-gnu-gcc-14 --sysroot="$arm64_sysroot" -O2 -Wall -Wextra -Werror \
        -o .build/hil-arm64/hil-capture Tests/HIL/tools/capture.c -lasound \
        || fail "the loopback recorder did not build for aarch64"
}

install_missing_packages qemu-system-arm qemu-user-static debootstrap xz-utils cpio kmod
arm64_prepare
arm64_kernel_tools
mkdir -p "$cache"
exec 7> "$cache/lock"
flock 7
if [[ -f $cache/ready && $(cat "$cache/ready") == "$recipe" ]]; then
    build_capture
    exit 0
fi
started=$SECONDS
rm -f "$cache/ready"

# apt of its own for trixie (arm64, and amd64 for the kernel's build tools), never the host's.
apt=$cache/apt
arm64_apt_dir "$apt" trixie arm64 amd64
export APT_CONFIG=$apt/apt.conf
apt-get update -qq >&2 || fail "apt-get update for trixie failed"
abi=$(apt-cache depends linux-image-arm64 | sed -n 's/^ *Depends: linux-image-//p' | head -n 1)
[[ -n $abi ]] || fail "trixie has no linux-image-arm64"
version=${abi%-arm64}
series=$(cut -d. -f1,2 <<<"$abi")
say "kernel $abi"
(cd "$apt/debs" && rm -f ./*.deb && apt-get download -qq "linux-image-$abi" "linux-headers-$abi" "linux-headers-$version-common" \
    "linux-kbuild-$version:amd64" "linux-source-$series" busybox-static) >&2 || fail "downloading trixie's arm64 kernel packages failed"
unset APT_CONFIG

# The kernel and its modules, unpacked (never installed anywhere).
rm -rf "$cache/kernel" "$cache/kbuild" && mkdir -p "$cache/kernel" "$cache/kbuild"
dpkg-deb -x "$apt/debs/linux-image-${abi}_"*.deb "$cache/kernel"
cp "$cache/kernel/boot/vmlinuz-$abi" "$cache/Image"
modules=$cache/kernel/usr/lib/modules/$abi
[[ -d $modules ]] || fail "no modules in linux-image-$abi"

# gpio-sim (with the interrupt simulator it needs), i2c-stub and vfb, from the kernel's own
# sources, built against its headers (their Makefile names the cross compiler).
for deb in "$apt/debs/linux-headers-"*.deb "$apt/debs/linux-kbuild-"*.deb; do dpkg-deb -x "$deb" "$cache/kbuild"; done
src=$cache/kbuild/src && mkdir -p "$src/mod"
dpkg-deb --fsys-tarfile "$apt/debs/linux-source-${series}_"*.deb | tar -x -C "$src" --wildcards '*/linux-source-*.tar.xz'
tarball=$(find "$src" -name 'linux-source-*.tar.xz' | head -n 1)
top=$(basename "$tarball" .tar.xz)
tar -xJf "$tarball" -C "$src" "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" "$top/kernel/irq/irq_sim.c" \
    "$top/drivers/i2c/i2c-stub.c" "$top/drivers/video/fbdev/vfb.c"
cp "$src/$top/drivers/gpio/gpio-sim.c" "$src/mod/gpio-sim-core.c"
cp "$src/$top/drivers/gpio/gpiolib.h" "$src/$top/kernel/irq/irq_sim.c" "$src/$top/drivers/i2c/i2c-stub.c" "$src/$top/drivers/video/fbdev/vfb.c" "$src/mod/"
# As for amd64 (prepare.sh): irq_to_desc() is not exported to modules.
sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$src/mod/irq_sim.c"
grep -q 'generic_handle_irq(irqnum);' "$src/mod/irq_sim.c" || fail "irq_sim.c patch did not apply"
printf 'obj-m := gpio-sim.o i2c-stub.o vfb.o\ngpio-sim-y := gpio-sim-core.o irq_sim.o\n' > "$src/mod/Makefile"
rm -f "$tarball"
kbuild_dir=$(basename "$(find "$cache/kbuild/usr/lib" -maxdepth 1 -name 'linux-kbuild-*' | head -n 1)")
ARM64_BINDS="$cache/kbuild/usr/src=/usr/src $cache/kbuild/usr/lib/$kbuild_dir=/usr/lib/$kbuild_dir $src/mod=/kmod" \
    in_sid make -s -C "/usr/src/linux-headers-$abi" M=/kmod modules > "$cache/modules.log" 2>&1 \
    || { tail -n 20 "$cache/modules.log" >&2; fail "building gpio-sim, i2c-stub and vfb for $abi failed"; }
mkdir -p "$modules/extra"
cp "$src/mod/"{gpio-sim,i2c-stub,vfb}.ko "$modules/extra/"
depmod -b "$cache/kernel/usr" "$abi" || fail "depmod failed"
rm -rf "$cache/kbuild"

# The initramfs: busybox, the modules that reach the root (decompressed: busybox's insmod
# reads plain .ko), and the same init as amd64's.
initramfs=$cache/initramfs
rm -rf "$initramfs" && mkdir -p "$initramfs"/{bin,modules,proc,sys,dev,host,upper,root}
bb=$(mktemp -d)
dpkg-deb -x "$apt/debs/busybox-static_"*.deb "$bb"
cp "$bb/usr/bin/busybox" "$initramfs/bin/busybox"
rm -rf "$bb"
cp "$here/guest/init" "$initramfs/init" && chmod +x "$initramfs/init"
for m in 9p 9pnet_virtio overlay; do
    modprobe -d "$cache/kernel/usr" -S "$abi" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r f; do
    name=$(basename "$f" .xz)
    if [[ $f == *.xz ]]; then xz -dc "$f" > "$initramfs/modules/$name"; else cp "$f" "$initramfs/modules/$name"; fi
    echo "$name" >> "$initramfs/modules/order"
done
[[ -s $initramfs/modules/order ]] || fail "no 9p modules for the initramfs"
(cd "$initramfs" && find . | cpio -o -H newc --quiet | gzip -1) > "$cache/initramfs.gz"
rm -rf "$initramfs"
echo "$abi" > "$cache/abi"

# The guest's root: trixie arm64, debootstrap's first stage here, its second stage under
# qemu-user (arm64_in_root, scripts/arm64-toolchain.sh). About 4 minutes here for the whole
# stage; run in the VM over 9p instead, it had unpacked 10 of its 150 packages after 4 minutes.
root=$cache/root
stamp="$guest_packages $mirror"
if [[ ! -f $cache/root.ready || $(cat "$cache/root.ready") != "$stamp" ]]; then
    rm -rf "$root" "$cache/root.ready"
    say "debootstrap trixie arm64 for the guest"
    debootstrap --arch=arm64 --foreign --variant=minbase --include="$guest_packages" trixie "$root" "$mirror" \
        > "$cache/debootstrap.log" 2>&1 || { tail -n 20 "$cache/debootstrap.log" >&2; fail "debootstrap trixie arm64 failed"; }
    chmod 755 "$root"
    arm64_second_stage "$root" > "$cache/second-stage.log" 2>&1 \
        || { tail -n 30 "$cache/second-stage.log" >&2; fail "debootstrap's second stage failed (log: $cache/second-stage.log)"; }
    rm -rf "$root/var/cache/apt/archives/"*.deb
    echo "$stamp" > "$cache/root.ready"
fi
build_capture
echo "$recipe" > "$cache/ready"
say "prepared in $((SECONDS - started)) s ($(du -sh "$cache" | cut -f1) in $cache)"
