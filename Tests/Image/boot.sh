#!/usr/bin/env bash
# Boots the SD-card image (scripts/sd-image.sh) in qemu-system-aarch64 and checks what a family
# meets (#50), on a copy of the image grown to a 4 GiB card:
#   Tests/Image/boot.sh [IMAGE]        (default: the newest .build/image/*.img)
# First boot (virt), with a wpa_supplicant.conf on the boot partition:
#   - the web app's first-run page answers at questbox.local:8080 (the Host a phone sends);
#   - SSH is off; the root filesystem grew to the card;
#   - after a clean power-off, the Wi-Fi file left the card for /etc/wpa_supplicant, mode 600,
#     with wpa_supplicant@wlan0 enabled, and the machine got its own id.
# Second boot, on qemu's raspi3b (the Pi 3's SoC, which the Zero 2 W shares, with the Pi's own
# device tree, the card as its SD card and cmdline.txt as it is), with ssh, userconf.txt and
# timezone.txt on the boot partition: SSH answers and the user from userconf.txt logs in; the
# box's doctor, as its own user, opens the GPIO chips and finds the Zero 2 W profile's six
# lines by name on pinctrl-bcm2835; over SSH: questbox.local is the box (avahi, through
# nss-mdns), avahi joined the network's mDNS group and announces the web app, the box, web app and
# link run (the box waiting for its board), no unit failed; after power-off the user is in
# group sudo, the zone is set, and the root did not grow again. (qemu's user network carries
# no multicast, so no peer on the link asks avahi: the name is checked from the box itself.)
# The first boot is on qemu's virt board (Cortex-A72), the second on its raspi3b; both boot
# the kernel and initramfs from the image's own boot partition (the Pi's firmware, start.elf
# reading config.txt, is not emulated). Times under TCG are not a Pi's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/../.." && pwd -P)
cd "$checkout"
say() { echo "image-boot: $*" >&2; }
fail() { echo "image-boot: FAIL: $*" >&2; exit 1; }
source scripts/setup.sh
install_missing_packages qemu-system-arm mtools fdisk e2fsprogs sshpass openssl

image=${1:-$(ls -t .build/image/*.img 2>/dev/null | head -n 1)}
[[ -f $image ]] || fail "no image: make one with scripts/sd-image.sh"
work=$(mktemp -d /tmp/questbox-image-boot.XXXXXX)
qemu_pid= running_machine=
# The consoles are kept (.build/image/boot-logs) for whoever reads a failure.
logs=$checkout/.build/image/boot-logs
cleanup() {
    [[ -n $qemu_pid ]] && kill "$qemu_pid" 2>/dev/null
    rm -rf "$logs" && mkdir -p "$logs" && cp "$work"/*.console "$logs/" 2>/dev/null
    [[ -n ${QUESTBOX_KEEP_CARD:-} ]] && mv "$work/card.img" "$logs/" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
disk=$work/card.img
cp --sparse=always "$image" "$disk"
# A 4 GiB card: larger than the image, as a card is, and a power of two, as qemu's SD card must be.
(($(stat -c %s "$disk") < 4 << 30)) || fail "the image is larger than the 4 GiB card of this test"
truncate -s 4G "$disk"
card_sectors=$(($(stat -c %s "$disk") / 512))

part_start() { sfdisk --quiet --dump "$disk" | sed -n "s|^$disk$1 : start= *\([0-9]*\),.*|\1|p"; }
part_size() { sfdisk --quiet --dump "$disk" | sed -n "s|^$disk$1 : .*size= *\([0-9]*\),.*|\1|p"; }
fat="$disk@@$(($(part_start 1) * 512))"
root_offset=$(($(part_start 2) * 512))
# debugfs reads a file, not an offset: the root partition is copied out once per powered-off
# state of the card (as made, after each boot), and read there.
root_fs=$work/root.ext4
copy_root() { dd if="$disk" of="$root_fs" bs=1M skip=$((root_offset / 1048576)) count=$(($(part_size 2) / 2048)) conv=sparse status=none; }
in_root() { debugfs -R "$1" "$root_fs" 2>/dev/null; }
block_count() { dumpe2fs -h "$root_fs" 2>/dev/null | sed -n 's/^Block count: *//p'; }
copy_root
blocks_before=$(block_count)

mcopy -i "$fat" ::/vmlinuz-* ::/initrd.img-* ::/cmdline.txt ::/bcm2837-rpi-3-b.dtb "$work/"
kernel=$(ls "$work"/vmlinuz-*) initrd=$(ls "$work"/initrd.img-*)
cmdline=$(cat "$work/cmdline.txt")
grep -q 'root=LABEL=RASPIROOT' <<<"$cmdline" || fail "cmdline.txt does not name the root by label: $cmdline"
cp --sparse=always "$disk" "$work/fresh-card.img"  # as flashed, for Raspberry Pi Imager's boots below

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
web=$(free_port) ssh=$(free_port)

# The Pi's firmware reads cmdline.txt from the card at every power-on; so does this test.
page_host=questbox.local:8080
start_machine() {  # NAME MACHINE
    local name=$1 machine=$2 board
    cmdline=$(mtype -i "$fat" ::/cmdline.txt | tr -d '\r\n')
    running_machine=$machine
    : > "$work/$name.console"
    local net="user,id=net,hostfwd=tcp:127.0.0.1:$web-:8080,hostfwd=tcp:127.0.0.1:$ssh-:22"
    if [[ $machine == raspi3b ]]; then
        # The Pi 3's SoC (a Zero 2 W's too) with the Pi's own device tree from the card, the
        # card as its SD card (mmcblk0), cmdline.txt as it is (its console is the mini UART,
        # qemu's second serial port), and a USB network adapter (usb0).
        board=(-M raspi3b -m 1024 -dtb "$work/bcm2837-rpi-3-b.dtb" -append "$cmdline"
            -drive "file=$disk,format=raw,if=sd" -usb -device usb-net,netdev=net -netdev "$net"
            -serial null -serial "file:$work/$name.console")
    else
        # qemu's virt board: the same kernel with another device tree; the virt board's serial
        # console in place of the Pi's.
        board=(-M virt -cpu cortex-a72 -smp 2 -m 1024 -append "$(sed -e 's/console=[^ ]*//g' <<<"$cmdline") console=ttyAMA0"
            -drive "file=$disk,format=raw,if=virtio" -device virtio-net-pci,netdev=net -netdev "$net"
            -serial "file:$work/$name.console")
    fi
    qemu-system-aarch64 "${board[@]}" -kernel "$kernel" -initrd "$initrd" -nographic -no-reboot \
        -monitor "unix:$work/monitor,server,nowait" > "$work/$name.qemu" 2>&1 &
    qemu_pid=$!
}

boot() {  # NAME MACHINE: boots the card until the web app's first-run page answers
    local name=$1 started=$SECONDS
    start_machine "$1" "$2"
    until curl -sf -m 5 -H "Host: $page_host" "http://127.0.0.1:$web/parent" > "$work/$name.page" 2>/dev/null \
        && grep -q 'Set up the box' "$work/$name.page"; do
        kill -0 "$qemu_pid" 2>/dev/null || { tail -n 30 "$work/$name.console" >&2; fail "$name: the machine stopped before the web app answered"; }
        ((SECONDS - started < 900)) || { tail -n 30 "$work/$name.console" >&2; fail "$name: no first-run page after 900 s"; }
        sleep 3
    done
    say "$name ($running_machine): the first-run page answers at $page_host, $((SECONDS - started)) s after power-on (TCG)"
}

boot_until_restart() {  # NAME: boots the card (virt) until the machine restarts itself (qemu -no-reboot ends)
    local name=$1 started=$SECONDS
    start_machine "$name" virt
    while kill -0 "$qemu_pid" 2>/dev/null; do
        ((SECONDS - started < 900)) || { tail -n 30 "$work/$name.console" >&2; fail "$name: no restart after 900 s"; }
        sleep 3
    done
    wait "$qemu_pid" 2>/dev/null || true
    qemu_pid=
    grep -aq 'reboot: Restarting system' "$work/$name.console" || { tail -n 30 "$work/$name.console" >&2; fail "$name: the machine stopped without restarting"; }
    say "$name (virt): restarted itself $((SECONDS - started)) s after power-on (TCG)"
    copy_root
}

power_off() {  # NAME: the power button (virt), or `systemctl poweroff` over SSH (raspi3b has
    # no power button; its machine halts but does not stop, so the kernel's last line is awaited)
    local name=$1 started=$SECONDS
    if [[ $running_machine == virt ]]; then
        python3 - "$work/monitor" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.recv(4096)
s.sendall(b"system_powerdown\n"); s.recv(4096)
PY
    else
        as_root systemctl poweroff || true
    fi
    while kill -0 "$qemu_pid" 2>/dev/null && ! grep -aq 'reboot: Power down' "$work/$name.console"; do
        ((SECONDS - started < 180)) || { tail -n 20 "$work/$name.console" >&2; fail "$name: no power-off 180 s after it was asked"; }
        sleep 2
    done
    kill "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
    qemu_pid=
    say "$name: powered off cleanly in $((SECONDS - started)) s"
    copy_root
}

# The user that the second boot makes from userconf.txt.
on_box() { sshpass -p family-secret ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=error -p "$ssh" dad@127.0.0.1 "$@"; }
as_root() { on_box "echo family-secret | sudo -S -p '' $*"; }

console_has() { grep -q "$2" "$work/$1.console" || { tail -n 40 "$work/$1.console" >&2; fail "$1: the console never said '$2'"; }; }

ssh_banner() { python3 - "$ssh" <<'PY'
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5); s.settimeout(8)
    print(s.recv(64).decode(errors="replace").strip())
except OSError: pass
PY
}

# First boot: the Wi-Fi file is on the card.
printf 'country=GB\nctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev\nnetwork={\n    ssid="Family"\n    psk="correct horse battery"\n}\n' > "$work/wpa_supplicant.conf"
mcopy -i "$fat" "$work/wpa_supplicant.conf" ::/wpa_supplicant.conf
boot first virt
console_has first 'questbox-bootfiles: root filesystem grown to the card'
console_has first 'questbox-bootfiles: Wi-Fi taken from the boot partition'
banner=$(ssh_banner)
[[ -z $banner ]] || fail "SSH answers on a fresh card ('$banner'); it must be off"
curl -sf -m 10 -H 'Host: questbox.local:8080' "http://127.0.0.1:$web/" > /dev/null || fail "the web app's home page does not answer"
power_off first

[[ $(part_size 2) -eq $((card_sectors - $(part_start 2))) ]] || fail "the root partition did not grow to the card's end"
blocks_after=$(block_count)
((blocks_after > blocks_before)) || fail "the root filesystem did not grow ($blocks_before blocks, then $blocks_after)"
say "root filesystem: $blocks_before blocks as made, $blocks_after on the larger card"
mdir -i "$fat" ::/wpa_supplicant.conf > /dev/null 2>&1 && fail "wpa_supplicant.conf (a Wi-Fi password) is still on the boot partition"
mode=$(in_root "stat /etc/wpa_supplicant/wpa_supplicant-wlan0.conf" | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p')
[[ $mode == 0600 ]] || fail "/etc/wpa_supplicant/wpa_supplicant-wlan0.conf has mode '${mode:-missing}', not 0600"
in_root "cat /etc/wpa_supplicant/wpa_supplicant-wlan0.conf" | grep -q 'ssid="Family"' || fail "the Wi-Fi settings were not kept"
in_root "stat /etc/systemd/system/multi-user.target.wants/wpa_supplicant@wlan0.service" | grep -q 'Type: symlink' \
    || fail "wpa_supplicant@wlan0 is not enabled"
machine_id=$(in_root "cat /etc/machine-id")
[[ $machine_id =~ ^[0-9a-f]{32}$ ]] || fail "the box has no machine id of its own after its first boot ('$machine_id')"
in_root "ls /etc/ssh" | grep -q ssh_host_ && fail "SSH host keys exist while SSH is off"
for unit in questbox questbox-web; do
    grep -q "Started.*$( [[ $unit == questbox ]] && echo 'TimeQuest Box\.' || echo 'TimeQuest Box web app')" "$work/first.console" \
        || say "($unit's start is not on the console; the web page above is its proof)"
done
say "first boot: Wi-Fi moved off the card (mode 0600, wlan0 enabled), machine id $machine_id, SSH off"

# Second boot: SSH on, a user, a time zone.
hash=$(openssl passwd -6 'family-secret' 2>/dev/null || python3 -c 'import crypt; print(crypt.crypt("family-secret", crypt.mksalt(crypt.METHOD_SHA512)))')
echo "dad:$hash" > "$work/userconf.txt"
echo "Europe/Berlin" > "$work/timezone.txt"
: > "$work/ssh"
mcopy -i "$fat" "$work/userconf.txt" "$work/timezone.txt" "$work/ssh" ::/
boot second raspi3b
console_has second 'questbox-bootfiles: user dad made (sudo)'
console_has second 'questbox-bootfiles: SSH turned on'
console_has second 'questbox-bootfiles: time zone Europe/Berlin'
grep -q 'root filesystem grown' "$work/second.console" && fail "the second boot grew the root again"
for _ in $(seq 20); do banner=$(ssh_banner); [[ -n $banner ]] && break; sleep 3; done
[[ $banner == SSH-2.0-OpenSSH* ]] || fail "SSH was turned on but does not answer ('$banner')"
address=$(on_box getent ahostsv4 questbox.local | awk 'NR == 1 { print $1 }')
[[ $address == 10.0.2.15 ]] || fail "questbox.local is '${address:-nothing}' on the box, not its 10.0.2.15"
avahi=$(as_root journalctl -u avahi-daemon --no-pager)
grep -Eq 'Joining mDNS multicast group on interface [a-z0-9]+\.IPv4 with address 10\.0\.2\.15' <<<"$avahi" || fail "avahi did not join the network's mDNS group"
grep -q 'Service "TimeQuest Box on questbox" (/services/questbox.service) successfully established' <<<"$avahi" \
    || fail "avahi does not announce the web app"
active=$(on_box systemctl is-active questbox questbox-web questbox-link | paste -sd' ')
[[ $active == "active active active" ]] || fail "the box's services are '$active', not all active"
as_root journalctl -u questbox --no-pager | grep -q 'no board chosen: the box waits for one' || fail "the box does not say it waits for its board"
failed=$(on_box systemctl --failed --no-legend --plain | awk '{ print $1 }' | paste -sd' ')
[[ -z $failed ]] || fail "units failed on the box: $failed"
model=$(on_box cat /proc/device-tree/model | tr -d '\0')
[[ $model == "Raspberry Pi 3 Model B"* ]] || fail "the second boot is not on the Pi's device tree ('$model')"
source=$(on_box findmnt -n -o SOURCE /)
[[ $source == /dev/mmcblk0p2 ]] || fail "the root is $source, not the SD card's second partition"
# The Zero 2 W's profile (the Pi 3's SoC): every line found by name, by the box's own user.
doctor=$(as_root -u questbox questbox doctor --board rpi-zero2w --data /var/lib/questbox 2>&1 || true)
grep -q '^OK    GPIO chips .* readable and writable' <<<"$doctor" || { echo "$doctor" >&2; fail "the box's user cannot open the GPIO chips"; }
[[ $(grep -c '^OK    line .* (pinctrl-bcm2835)' <<<"$doctor") -eq 6 ]] || { echo "$doctor" >&2; fail "doctor did not find the six lines of rpi-zero2w on pinctrl-bcm2835"; }
say "second boot: $model, root $source; doctor as questbox: the GPIO chips open, lock, stop, up, down, led and buzzer found by name on pinctrl-bcm2835"
memory=$(on_box free -m | awk '/^Mem:/ { print $3 }')
say "second boot, over SSH as dad: questbox.local is $address, avahi announces the web app, the box waits for its board, no unit failed, ${memory} MB of memory used"
power_off second
in_root "cat /etc/group" | grep -Eq '^sudo:.*dad' || fail "the user from userconf.txt is not in group sudo"
[[ $(in_root "cat /etc/timezone") == Europe/Berlin ]] || fail "timezone.txt was not applied"
for file in ssh userconf.txt timezone.txt; do
    mdir -i "$fat" "::/$file" > /dev/null 2>&1 && fail "$file is still on the boot partition"
done
say "second boot: SSH answers ($banner), user dad in sudo, Europe/Berlin, the card's files taken"

# #69: a fresh card as Raspberry Pi Imager writes it with its settings (a name, a user, an SSH
# key, the Wi-Fi with its country, a keymap and a time zone): firstrun.sh as its generator
# writes it and cmdline.txt with its systemd.run= words (Tests/Image/imager_firstrun.py). Its
# script names /boot; this card's boot partition is /boot/firmware.
mv "$work/fresh-card.img" "$disk"
copy_root
mcopy -i "$fat" ::/cmdline.txt "$work/imager-cmdline.txt"
ssh-keygen -q -t ed25519 -N '' -C family@laptop -f "$work/imager_key"
mum_hash=$(openssl passwd -5 'mum-secret')
python3 Tests/Image/imager_firstrun.py "$work" "$work/imager-cmdline.txt" kitchenbox mum "$mum_hash" \
    "$(cat "$work/imager_key.pub")" "Family 5G" "correct horse battery" GB Europe/London gb
mcopy -o -i "$fat" "$work/firstrun.sh" ::/firstrun.sh
mcopy -o -i "$fat" "$work/imager-cmdline.txt" ::/cmdline.txt
boot_until_restart imager
console_has imager "questbox-firstrun: Raspberry Pi Imager's words removed from cmdline.txt"
console_has imager "questbox-firstrun: Raspberry Pi Imager's settings applied (firstrun.sh ended with 0)"
console_has imager 'imager_custom: host name kitchenbox'
console_has imager 'userconf: user mum made (sudo)'
mdir -i "$fat" ::/firstrun.sh > /dev/null 2>&1 && fail "firstrun.sh (a Wi-Fi key and a password hash) is still on the boot partition"
left=$(mtype -i "$fat" ::/cmdline.txt)
grep -q 'systemd\.' <<<"$left" && fail "cmdline.txt still has Imager's words: $left"
grep -q 'root=LABEL=RASPIROOT' <<<"$left" || fail "cmdline.txt lost the root's label: $left"
[[ $(in_root "cat /etc/hostname") == kitchenbox ]] || fail "Imager's host name was not applied: $(in_root "cat /etc/hostname")"
[[ $(in_root "cat /etc/timezone") == Europe/London ]] || fail "Imager's time zone was not applied"
wifi=$(in_root "cat /etc/wpa_supplicant/wpa_supplicant-wlan0.conf")
psk=$(python3 -c 'import hashlib; print(hashlib.pbkdf2_hmac("sha1", b"correct horse battery", b"Family 5G", 4096, 32).hex())')
grep -qx 'country=GB' <<<"$wifi" && grep -qx "    ssid=$(printf 'Family 5G' | od -An -tx1 -v | tr -d ' \n')" <<<"$wifi" \
    && grep -qx "    psk=$psk" <<<"$wifi" || { echo "$wifi" >&2; fail "Imager's Wi-Fi was not applied as given"; }
[[ $(in_root "stat /etc/wpa_supplicant/wpa_supplicant-wlan0.conf" | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p') == 0600 ]] || fail "the Wi-Fi file is readable by others"
in_root "cat /etc/group" | grep -Eq '^sudo:.*mum' || fail "Imager's user mum is not in group sudo"
in_root "cat /home/mum/.ssh/authorized_keys" | grep -qF "$(cut -d' ' -f2 "$work/imager_key.pub")" || fail "Imager's SSH key is not mum's"
in_root "cat /etc/ssh/sshd_config.d/questbox-imager.conf" | grep -qx 'PasswordAuthentication no' || fail "SSH is not key-only as Imager asked"
say "Imager's boot: kitchenbox, Europe/London, Wi-Fi for Family 5G (GB, its key as Imager derived it), mum in sudo with her key, SSH key-only; firstrun.sh and cmdline.txt's words gone"

page_host=kitchenbox.local:8080
boot imager-after virt
as_mum() { ssh -i "$work/imager_key" -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=error -p "$ssh" mum@127.0.0.1 "$@"; }
for _ in $(seq 20); do as_mum true 2>/dev/null && break; sleep 3; done
[[ $(as_mum hostname) == kitchenbox ]] || fail "the box after Imager's settings is not kitchenbox over SSH"
active=$(as_mum systemctl is-active questbox questbox-web questbox-link | paste -sd' ')
[[ $active == "active active active" ]] || fail "after Imager's settings the box's services are '$active', not all active"
failed=$(as_mum systemctl --failed --no-legend --plain | awk '{ print $1 }' | paste -sd' ')
[[ -z $failed ]] || fail "units failed after Imager's settings: $failed"
if sshpass -p mum-secret ssh -o PubkeyAuthentication=no -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=error -p "$ssh" mum@127.0.0.1 true 2>/dev/null; then
    fail "SSH took mum's password though Imager asked for keys only"
fi
say "after Imager's boot: the first-run page at kitchenbox.local, mum in by her key (not her password), the box, web app and link active, no unit failed"
power_off imager-after

# A card whose cmdline.txt still asks for firstrun.sh that is gone (the power cut after the
# script, or a second flash's leftovers): the words go, the box starts on the next boot.
mtype -i "$fat" ::/cmdline.txt | tr -d '\r\n' > "$work/stale-cmdline.txt"
printf ' systemd.run=/boot/firstrun.sh systemd.run_success_action=reboot systemd.unit=kernel-command-line.target' >> "$work/stale-cmdline.txt"
mcopy -o -i "$fat" "$work/stale-cmdline.txt" ::/cmdline.txt
boot_until_restart stale
console_has stale 'questbox-firstrun: cmdline.txt asked for firstrun.sh but the card has none'
grep -q 'systemd\.' <<<"$(mtype -i "$fat" ::/cmdline.txt)" && fail "the stale words are still in cmdline.txt"
say "a stale systemd.run= with no firstrun.sh: removed, and the machine restarted into the box"
say "PASS"
