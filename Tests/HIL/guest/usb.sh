#!/usr/bin/env bash
# Inside the HIL VM (Debian's kernel: vfat, exfat, loop and device-mapper as a Pi has them; the
# host's kernel may have no FAT at all): BACK-1, a copy off the SD card, on real file systems.
# Loop devices formatted FAT and exFAT are the USB sticks, mounted where automounters put
# them. `questbox backup --usb` copies the newest backup whole and once, and the copy
# restores; a full stick, a read-only one and one whose device fails under its mounted file
# system (device-mapper's error target, as a pulled stick does) are each one line naming the
# stick, with nothing left half-written and the store untouched; the running box copies to a
# stick the moment it is mounted (the kernel's mount-table event, no polling).
#   guest/usb.sh BIN_DIR      (from guest/scenarios usb)
set -euo pipefail
bin=$1
fail() { echo "FAIL usb: $*"; exit 1; }
# FAT names need their code page and character set (a Pi loads them when a stick comes).
for m in loop vfat nls_cp437 nls_utf8 nls_ascii exfat dm-mod; do modprobe "$m" || fail "cannot load the kernel module $m"; done
work=$(mktemp -d)
data="$work/data"
box=
media="/media/questbox-usb-test-$$"
mounts=()
devices=()
maps=()
usb_cleanup() {
    local i
    [[ -z $box ]] || { kill "$box" 2>/dev/null; wait "$box" 2>/dev/null; } || true
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
    for m in "${maps[@]}"; do dmsetup remove --force "$m" 2>/dev/null || true; done
    for d in "${devices[@]}"; do losetup -d "$d" 2>/dev/null || true; done
    rm -rf "$media" "$work"
}
trap usb_cleanup EXIT

# A stick: an image of SIZE MiB on a loop device formatted FS with LABEL; sets $dev.
new_stick() {
    local label=$1 size=$2 fs=$3
    truncate -s "${size}M" "$work/$label.img"
    dev=$(losetup --find --show "$work/$label.img")
    devices+=("$dev")
    case $fs in
        vfat) mkfs.vfat -n "$label" "$dev" >/dev/null ;;
        exfat) mkfs.exfat -L "$label" "$dev" >/dev/null ;;
    esac
}
# Mounts DEVICE as /media/…/LABEL with extra mount options; sets $mp.
mount_stick() {
    local device=$1 label=$2 options=${3:-}
    mp="$media/$label"
    mkdir -p "$mp"
    mount ${options:+-o "$options"} "$device" "$mp"
    mounts+=("$mp")
}
unmount_last() { umount "${mounts[-1]}"; unset 'mounts[-1]'; }
newest() { ls -t "$data/backups"/questbox-*.sqlite | head -1; }

"$bin/questbox" routine import deploy/example-routine.json --data "$data" >/dev/null
"$bin/questbox" backup --data "$data" >/dev/null

echo "usb: a FAT and an exFAT stick get the newest backup, whole, once" >&2
new_stick KINGSTON 32 vfat
mount_stick "$dev" KINGSTON
kingston=$mp
new_stick SANDISK 16 exfat
mount_stick "$dev" SANDISK
out=$("$bin/questbox" backup --usb --data "$data")
echo "$out" >&2
[[ $(grep -c '^copied to ' <<<"$out") == 2 ]] || fail "two copies expected, got: $out"
name=$(basename "$(newest)")
for stick in "$kingston" "$mp"; do
    cmp "$(newest)" "$stick/TimeQuest backups/$name" || fail "$stick holds another file than $name"
    [[ -z $(find "$stick/TimeQuest backups" -name '.*') ]] || fail "a temporary file was left on $stick"
done
again=$("$bin/questbox" backup --usb --data "$data")
[[ $(grep -c '^already on the stick: ' <<<"$again") == 2 ]] || fail "a second run wrote again: $again"
# A copy on a stick restores (the parent's way back when the card died).
"$bin/questbox" restore "$kingston/TimeQuest backups/$name" --data "$data" >/dev/null || fail "the stick's copy does not restore"
unmount_last
unmount_last

echo "usb: a full stick is one line; what was on it stays, nothing half-written" >&2
new_stick FULL 2 vfat
mount_stick "$dev" FULL
dd if=/dev/urandom of="$mp/holiday.mov" bs=64k 2>/dev/null || true
sync
before=$(sha256sum "$mp/holiday.mov")
if err=$("$bin/questbox" backup --usb --data "$data" 2>&1); then fail "a full stick took a copy: $err"; fi
echo "$err" >&2
grep -q 'USB stick “FULL”.*it is full' <<<"$err" || fail "the full stick's line: $err"
"$bin/questbox" backups --data "$data" | grep -q '^USB stick “FULL”: no copy yet; failed .*it is full' || fail "the store does not keep the full stick's line"
[[ $(sha256sum "$mp/holiday.mov") == "$before" ]] || fail "the stick's own file changed"
[[ -z $(find "$mp" -name '.*partial') ]] || fail "a partial copy was left on the full stick"
unmount_last

echo "usb: a read-only stick is one line" >&2
new_stick LOCKED 16 vfat
mount_stick "$dev" LOCKED ro
if err=$("$bin/questbox" backup --usb --data "$data" 2>&1); then fail "a read-only stick took a copy: $err"; fi
echo "$err" >&2
grep -q 'USB stick “LOCKED”.*read-only' <<<"$err" || fail "the read-only stick's line: $err"
unmount_last

echo "usb: a stick that fails under its file system (pulled) is one line; the store is untouched" >&2
new_stick PULLED 16 vfat
sectors=$(blockdev --getsz "$dev")
dmsetup create --noudevsync questbox-pulled-$$ --table "0 $sectors linear $dev 0"
maps+=("questbox-pulled-$$")
dmsetup mknodes
mount_stick "/dev/mapper/questbox-pulled-$$" PULLED
mkdir "$mp/TimeQuest backups"
sync
# From here every read and write of the device fails, as when the stick leaves its socket.
dmsetup suspend --noudevsync "questbox-pulled-$$"
dmsetup load "questbox-pulled-$$" --table "0 $sectors error"
dmsetup resume --noudevsync "questbox-pulled-$$"
if err=$("$bin/questbox" backup --usb --data "$data" 2>&1); then fail "a failed stick took a copy: $err"; fi
echo "$err" >&2
grep -q 'USB stick “PULLED”.*\(went away or failed\|read-only\|cannot\)' <<<"$err" || fail "the failed stick's line: $err"
grep -q 'Input/output error\|read-only' <<<"$err" || fail "the failed stick's line names no I/O error: $err"
"$bin/questbox" stats --data "$data" >/dev/null || fail "the store is not readable after the failed copy"
umount -l "$mp"; unset 'mounts[-1]'

echo "usb: the running box copies to a stick the moment it is mounted" >&2
"$bin/questbox" settings set reminders false --data "$data" >/dev/null
mkfifo "$work/keys"
"$bin/questbox" simulate --data "$data" < "$work/keys" > "$work/box.log" 2>&1 &
box=$!
exec 3> "$work/keys"
for _ in $(seq 300); do [[ -S "$data/questbox.sock" ]] && break; sleep 0.1; done
[[ -S "$data/questbox.sock" ]] || { cat "$work/box.log"; fail "the simulated box did not start"; }
sleep 1
new_stick SCHOOLBAG 16 vfat
mount_stick "$dev" SCHOOLBAG
name=$(basename "$(newest)")
for _ in $(seq 100); do [[ -f "$mp/TimeQuest backups/$name" ]] && break; sleep 0.1; done
[[ -f "$mp/TimeQuest backups/$name" ]] || { tail -20 "$work/box.log"; fail "the running box did not copy to the stick within 10 s"; }
"$bin/questbox" backups --data "$data" | grep -q "^USB stick “SCHOOLBAG”: last copy .* $name" \
    || fail "the store does not say the box copied to SCHOOLBAG: $("$bin/questbox" backups --data "$data")"
cmp "$(newest)" "$mp/TimeQuest backups/$name" || fail "the box's copy differs from its backup"
"$bin/questbox" backup --usb --data "$data" | grep -q '^already on the stick: ' || fail "the box's copy was not whole"
echo "PASS usb: FAT and exFAT sticks copied once and restorable; full, read-only and failed sticks one line each; the running box copied on mount"
