#!/usr/bin/env bash
# The SD-card image a family flashes (#50): Debian trixie arm64 for the Raspberry Pi (3, 4,
# Zero 2 W: Debian's raspi-firmware and linux-image-arm64) with the box's package installed,
# named questbox (questbox.local), SSH off, the Wi-Fi taken from the boot partition at first
# boot (deploy/image/questbox-bootfiles), then the web app's first run from a phone.
#   scripts/sd-image.sh [--deb FILE] [--xz] [OUT]
# Without --deb the arm64 package is built first (scripts/package-deb.sh --arch arm64).
# Default OUT: .build/image/questbox-<version>-arm64.img (prints its path); beside it
# questbox-<version>-arm64.rpi-imager-manifest for Raspberry Pi Imager 2.x ($QUESTBOX_IMAGE_URL:
# where the image will be published; the manifest names it there). Built from
# Debian's packages alone, without root's loop devices or mounts on the host: debootstrap,
# its second stage and the package's install under qemu-user in namespaces of their own
# (scripts/arm64-toolchain.sh), then mkfs.vfat + mtools and mkfs.ext4 -d make the two
# partitions as files, and sfdisk lays them out. The Debian system without the box's package
# is cached in $QUESTBOX_IMAGE_CACHE (default /tmp/questbox-image) while its recipe holds.
# Tests/Image/boot.sh boots the image in qemu-system-aarch64 and checks what a family sees.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "image: $*" >&2; }
fail() { echo "image: $*" >&2; exit 1; }

deb= xz= out=
while (($#)); do
    case $1 in
        --deb) deb=${2:?--deb needs a package file}; shift 2 ;;
        --xz) xz=1; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) fail "unknown option $1 (see --help)" ;;
        *) out=$1; shift ;;
    esac
done

source scripts/setup.sh
source scripts/arm64-toolchain.sh
install_missing_packages qemu-user-static debootstrap mtools dosfstools fdisk e2fsprogs xz-utils

if [[ -z $deb ]]; then
    deb=$(scripts/package-deb.sh --arch arm64 | tail -n 1)
fi
[[ -f $deb ]] || fail "--deb $deb: no such file"
deb=$(realpath "$deb")
[[ $(dpkg-deb -f "$deb" Package 2>/dev/null) == questbox ]] || fail "$deb: not a questbox package"
[[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || fail "$deb: Architecture $(dpkg-deb -f "$deb" Architecture), the image needs arm64"
version=$(dpkg-deb -f "$deb" Version)
out=$(realpath -m "${out:-.build/image/questbox-$version-arm64.img}")
mkdir -p "$(dirname "$out")"

cache=${QUESTBOX_IMAGE_CACHE:-/tmp/questbox-image}
mkdir -p "$cache"
exec 8> "$cache/lock"
flock 8
started=$SECONDS

# The Debian system: what boots a Pi (firmware, kernel, Wi-Fi firmware and regulatory data),
# the network (systemd-networkd, wpa_supplicant, resolved for DNS, avahi for questbox.local),
# the clock (a Pi has no real-time clock), ssh (installed, off), sudo, and the package's
# Depends, so that installing it needs nothing more.
depends=$(dpkg-deb -f "$deb" Depends Recommends | sed 's/^[A-Za-z]*: //' | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g' | grep -v '^$' | sort -u | paste -sd,)
packages=systemd,systemd-sysv,udev,dbus,kmod,iproute2,linux-image-arm64,initramfs-tools,raspi-firmware,firmware-brcm80211,wireless-regdb,wpasupplicant,systemd-resolved,systemd-timesyncd,avahi-daemon,libnss-mdns,openssh-server,sudo,e2fsprogs,fdisk,util-linux,ca-certificates,tzdata,less,nano,$depends
packages=$(tr ',' '\n' <<<"$packages" | sort -u | paste -sd,)
recipe=$( (echo "$packages $ARM64_MIRROR"; sed -n '/^# BASE RECIPE/,/^# END BASE RECIPE/p' "$0") | sha256sum | cut -c1-16)
base=$cache/base
# BASE RECIPE: a change between these lines makes the Debian system again.
if [[ ! -f $cache/base.ready || $(cat "$cache/base.ready") != "$recipe" ]]; then
    rm -rf "$base" "$cache/base.ready"
    say "debootstrap trixie arm64 ($(tr ',' '\n' <<<"$packages" | wc -l) packages asked; several minutes under emulation)"
    debootstrap --arch=arm64 --foreign --variant=minbase --components=main,non-free-firmware \
        --include="$packages" trixie "$base" "$ARM64_MIRROR" > "$cache/debootstrap.log" 2>&1 \
        || { tail -n 20 "$cache/debootstrap.log" >&2; fail "debootstrap trixie arm64 failed (log: $cache/debootstrap.log)"; }
    chmod 755 "$base"
    arm64_second_stage "$base" > "$cache/second-stage.log" 2>&1 \
        || { tail -n 30 "$cache/second-stage.log" >&2; fail "debootstrap's second stage failed (log: $cache/second-stage.log)"; }
    # The Pi's firmware reads config.txt and cmdline.txt from the boot partition: the root
    # by its label (the card is mmcblk0 on one Pi and mmcblk1 on another), and the consoles of
    # the screen and the header's serial pins.
    cat > "$base/etc/default/raspi-firmware" <<'EOF'
# Made by the TimeQuest Box image (scripts/sd-image.sh); see raspi-firmware's own defaults.
ROOTPART=LABEL=RASPIROOT
CONSOLES="tty0 ttyS1,115200"
EOF
    ARM64_ROOT_ENV="DEB_MAINT_PARAMS=configure" arm64_in_root "$base" /etc/kernel/postinst.d/z50-raspi-firmware \
        >> "$cache/second-stage.log" 2>&1 || fail "raspi-firmware's kernel hook failed (log: $cache/second-stage.log)"
    grep -q 'root=LABEL=RASPIROOT' "$base/boot/firmware/cmdline.txt" || fail "raspi-firmware wrote no cmdline.txt with the root's label"
    rm -rf "$base/var/cache/apt/archives/"*.deb "$base/var/lib/apt/lists/"*
    echo "$recipe" > "$cache/base.ready"
fi
# END BASE RECIPE

# The image's system: a copy of the cached one, with the box's package and the image's settings.
root=$cache/root
rm -rf "$root" && cp -a "$base" "$root"
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
cp "$deb" "$root/tmp/questbox.deb"
arm64_in_root "$root" dpkg -i /tmp/questbox.deb > "$cache/install.log" 2>&1 \
    || { tail -n 20 "$cache/install.log" >&2; fail "dpkg -i of $(basename "$deb") in the image failed (log: $cache/install.log)"; }
rm -f "$root/tmp/questbox.deb" "$root/usr/sbin/policy-rc.d"
[[ $(arm64_in_root "$root" /usr/bin/questbox --version) == "$version (arm64)" ]] || fail "the image's questbox does not say $version (arm64)"

echo questbox > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tquestbox\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"
cat > "$root/etc/fstab" <<'EOF'
LABEL=RASPIROOT /              ext4 rw,noatime 0 1
LABEL=RASPIFIRM /boot/firmware vfat rw,umask=0077 0 2
EOF
cat > "$root/etc/apt/sources.list" <<EOF
deb http://deb.debian.org/debian trixie main non-free-firmware
deb http://deb.debian.org/debian trixie-updates main non-free-firmware
deb http://security.debian.org/debian-security trixie-security main non-free-firmware
EOF
install -m 644 deploy/image/20-wired.network deploy/image/25-wireless.network "$root/etc/systemd/network/"
# avahi answers for questbox.local and announces the web app; resolved does DNS only.
mkdir -p "$root/etc/systemd/resolved.conf.d"
printf '[Resolve]\nMulticastDNS=no\nLLMNR=no\n' > "$root/etc/systemd/resolved.conf.d/questbox-image.conf"
install -m 644 deploy/questbox-web.avahi.service "$root/etc/avahi/services/questbox.service"
install -D -m 755 deploy/image/questbox-bootfiles "$root/usr/lib/questbox-image/questbox-bootfiles"
install -m 644 deploy/image/questbox-settings.sh "$root/usr/lib/questbox-image/"
install -m 644 deploy/image/questbox-bootfiles.service "$root/etc/systemd/system/"
# #69: Raspberry Pi Imager's settings (its firstrun.sh, for Imager 1.x and for 2.x through the
# manifest below): the commands it calls on Raspberry Pi OS, and its systemd.run= pointed at them.
install -m 755 deploy/image/imager/questbox-firstrun "$root/usr/lib/questbox-image/"
install -D -m 755 deploy/image/imager/imager_custom "$root/usr/lib/raspberrypi-sys-mods/imager_custom"
install -D -m 755 deploy/image/imager/userconf "$root/usr/lib/userconf-pi/userconf"
install -D -m 644 deploy/image/imager/questbox-imager.conf "$root/etc/systemd/system/kernel-command-line.service.d/questbox-imager.conf"
arm64_in_root "$root" sh -ec '
    systemctl enable questbox-bootfiles.service systemd-networkd.service systemd-resolved.service systemd-timesyncd.service avahi-daemon.service
    systemctl disable ssh.service ssh.socket 2>/dev/null || true
    passwd -l root' > "$cache/settings.log" 2>&1 || { cat "$cache/settings.log" >&2; fail "enabling the image's services failed"; }
# Nothing that must differ between two boxes is made here: SSH host keys are made when SSH is
# turned on, the machine id at first boot, the box's store and secrets when its services start.
rm -f "$root"/etc/ssh/ssh_host_* "$root/var/lib/dbus/machine-id"
: > "$root/etc/machine-id"
rm -rf "${root:?}/var/lib/questbox/"* "$root/var/log/"*.log "$root/root/.bash_history"
[[ -z $(find "$root/etc/systemd/system" -path '*.wants/*' \( -name 'ssh.*' -o -name 'sshd.*' \)) ]] || fail "SSH is still enabled in the image"

# The boot partition (FAT32, as the Pi's firmware reads it) and the root partition (ext4).
work=$cache/parts && rm -rf "$work" && mkdir -p "$work"
fat_mib=512
mkfs.vfat -C -F 32 -n RASPIFIRM "$work/boot.fat" $((fat_mib * 1024)) > /dev/null
mcopy -s -i "$work/boot.fat" "$root/boot/firmware/"* ::/
rm -rf "${root:?}/boot/firmware/"*
used_mib=$(du -sm "$root" | cut -f1)
root_mib=$((used_mib * 5 / 4 + 256))
mkfs.ext4 -q -L RASPIROOT -d "$root" "$work/root.ext4" "${root_mib}M" > "$cache/mkfs.log" 2>&1 \
    || { cat "$cache/mkfs.log" >&2; fail "mkfs.ext4 of the root failed"; }
# MBR as the Pi's firmware expects: the FAT partition first (type c), 4 MiB aligned.
start=8192
fat_sectors=$((fat_mib * 2048)) root_sectors=$((root_mib * 2048))
total=$(((start + fat_sectors + root_sectors) * 512))
rm -f "$out" && truncate -s "$total" "$out"
printf 'label: dos\nunit: sectors\nstart=%d, size=%d, type=c, bootable\nstart=%d, size=%d, type=83\n' \
    "$start" "$fat_sectors" $((start + fat_sectors)) "$root_sectors" | sfdisk --quiet "$out"
dd if="$work/boot.fat" of="$out" bs=1M seek=$((start / 2048)) conv=notrunc,sparse status=none
dd if="$work/root.ext4" of="$out" bs=1M seek=$(((start + fat_sectors) / 2048)) conv=notrunc,sparse status=none
rm -rf "$work" "$root"
say "$(basename "$out"): $((total / 1048576)) MiB (root ${used_mib} MiB used), made in $((SECONDS - started)) s"
download=$out
if [[ -n $xz ]]; then
    xz -T0 -6 -f -k "$out"
    download=$out.xz
    say "$(basename "$out").xz: $(($(stat -c %s "$out.xz") / 1048576)) MiB"
fi
# #69: Raspberry Pi Imager 2.x offers its settings (name, user, Wi-Fi, SSH key, time zone) for
# an image only when a manifest names its format; this image takes Imager's `systemd` one
# (firstrun.sh). Imager needs absolute addresses: $QUESTBOX_IMAGE_URL, the folder the image is
# published in, else this file's own path (a manifest for this machine).
manifest=${out%.img}.rpi-imager-manifest
base=${QUESTBOX_IMAGE_URL:-file://$(dirname "$out")}
install -m 644 deploy/image/imager/questbox-icon.svg "$(dirname "$out")/questbox-icon.svg"
python3 - "$manifest" "$out" "$download" "${base%/}" "$version" "$(git log -1 --format=%cs 2>/dev/null || date -u +%F)" <<'PY'
import hashlib, json, os, sys
manifest, image, download, base, version, released = sys.argv[1:]
def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
entry = {
    "name": "TimeQuest Box " + version,
    "description": "The quest timer box for a Raspberry Pi 3, 4 or Zero 2 W (Debian trixie, arm64). Imager's settings are applied at first boot.",
    "url": base + "/" + os.path.basename(download),
    "icon": base + "/questbox-icon.svg",
    "release_date": released,
    "extract_size": os.path.getsize(image),
    "extract_sha256": sha256(image),
    "image_download_size": os.path.getsize(download),
    "image_download_sha256": sha256(download),
    "init_format": "systemd",
    "architecture": "armv8",
}
with open(manifest, "w") as f:
    json.dump({"os_list": [entry]}, f, indent=2)
    f.write("\n")
PY
say "$(basename "$manifest"): Raspberry Pi Imager 2.x's manifest (init_format systemd, $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["os_list"][0]["url"])' "$manifest"))"
echo "$download"
