#!/usr/bin/env bash
# Prepares the hardware-in-the-loop VM from Debian packages only, cached in $HIL_CACHE
# (default /tmp/questbox-hil): Debian's stock kernel, a gpio-sim module built out of tree
# (bookworm's 6.1 kernel ships with CONFIG_GPIO_SIM unset) and a busybox initramfs that
# mounts the host's root over 9p. Idempotent: a prepared cache is reused while this script
# and guest/init are unchanged. Also builds the
# test equipment into .build/hil (hil-capture), every time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${HIL_CACHE:-/tmp/questbox-hil}
# Test equipment every scenario needs, built into this checkout (not the cache) each time,
# since the checkout's copy changes with it: the loopback card's recorder, which stamps every
# frame on CLOCK_MONOTONIC (tools/capture.c).
build_capture() {
    mkdir -p "$here/../../.build/hil"
    cc -O2 -Wall -Wextra -Werror -o "$here/../../.build/hil/hil-capture" "$here/tools/capture.c" -lasound
}
mkdir -p "$cache"
cd "$cache"
# The recipe by content, not by time: a fresh clone's files are all newer than the cache.
recipe=$(cat "$here/prepare.sh" "$here/guest/init" | sha256sum | cut -c1-16)
if [[ -f ready && $(cat ready) == "$recipe" ]]; then
    build_capture
    exit 0
fi

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
abi=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-//p' | head -n1)
if [[ -z "$abi" ]]; then
    (flock 8; "${sudo_cmd[@]}" apt-get update -qq) 8> /tmp/questbox-apt.lock
    abi=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: linux-image-//p' | head -n1)
fi
echo "hil: kernel $abi" >&2
need=(qemu-system-x86 busybox-static gpiod alsa-utils gcc make libc6-dev kmod xz-utils cpio python3 "linux-headers-$abi")
missing=()
for p in "${need[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
if ((${#missing[@]})); then
    # One installer at a time (scripts/setup.sh's lock): CI prepares this beside its unit tests.
    (
        flock 8
        "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=900 update -qq
        "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    ) 8> /tmp/questbox-apt.lock
fi

# The kernel and its modules, unpacked here (never installed on the host).
if [[ ! -d "kernel/lib/modules/$abi" ]]; then
    rm -rf kernel dl && mkdir dl
    (cd dl && apt-get download -qq "linux-image-$abi")
    dpkg-deb -x dl/linux-image-*.deb kernel
    rm -rf dl
fi
# QEMU can boot the plain ELF kernel through its PVH note, skipping the xz decompression
# (seconds under software emulation): cut the xz stream out of the bzImage.
if [[ ! -f vmlinux ]]; then
    python3 - "kernel/boot/vmlinuz-$abi" vmlinux <<'PY'
import lzma, sys
blob = open(sys.argv[1], 'rb').read()
start = blob.index(b'\xfd7zXZ\x00')
open(sys.argv[2], 'wb').write(lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(blob[start:]))
PY
fi

# gpio-sim, out of tree, from the matching linux-source package.
ko="kernel/lib/modules/$abi/extra/gpio-sim.ko"
if [[ ! -f "$ko" ]]; then
    series=$(cut -d. -f1,2 <<<"$abi")
    rm -rf src dl && mkdir -p src/mod dl
    (cd dl && apt-get download -qq "linux-source-$series")
    dpkg-deb --fsys-tarfile dl/linux-source-*.deb | tar -x -C src --wildcards '*/linux-source-*.tar.xz'
    tarball=$(find src -name 'linux-source-*.tar.xz' | head -n1)
    top=$(basename "$tarball" .tar.xz)
    tar -xJf "$tarball" -C src "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" "$top/kernel/irq/irq_sim.c"
    cp "src/$top/drivers/gpio/gpio-sim.c" src/mod/gpio-sim-core.c
    cp "src/$top/drivers/gpio/gpiolib.h" "src/$top/kernel/irq/irq_sim.c" src/mod/
    # The one change: irq_to_desc() is not exported to modules on x86, and for these
    # simple interrupts generic_handle_irq() does the same thing.
    sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' src/mod/irq_sim.c
    grep -q 'generic_handle_irq(irqnum);' src/mod/irq_sim.c || { echo "hil: irq_sim.c patch did not apply" >&2; exit 1; }
    printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-core.o irq_sim.o\n' > src/mod/Makefile
    make -s -C "/lib/modules/$abi/build" M="$cache/src/mod" modules
    mkdir -p "$(dirname "$ko")"
    cp src/mod/gpio-sim.ko "$ko"
    rm -rf src dl
fi
depmod -b kernel "$abi"

# The initramfs: busybox, the modules to reach the host root, and our init.
rm -rf initramfs && mkdir -p initramfs/{bin,modules,proc,sys,dev,host,upper,root}
cp /bin/busybox initramfs/bin/busybox
cp "$here/guest/init" initramfs/init
chmod +x initramfs/init
for m in 9p 9pnet_virtio virtio_pci overlay; do
    modprobe -d kernel -S "$abi" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r f; do cp "$f" initramfs/modules/; done
# Load order for init: dependencies first, as modprobe printed them.
for m in 9p 9pnet_virtio virtio_pci overlay; do
    modprobe -d kernel -S "$abi" --show-depends "$m" | awk '$1 == "insmod" { n = split($2, p, "/"); print p[n] }'
done | awk '!seen[$0]++' > initramfs/modules/order
(cd initramfs && find . | cpio -o -H newc --quiet | gzip -1) > initramfs.gz
echo "$abi" > abi
build_capture
echo "$recipe" > ready
echo "hil: prepared in $cache" >&2
