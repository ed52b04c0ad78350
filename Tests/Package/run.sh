#!/usr/bin/env bash
# The Debian package, tried as a Pi owner would: build it, lintian with no errors or warnings
# (the few overridden are justified in deploy/debian/lintian-overrides), then in a fresh
# bookworm root made with debootstrap (cached in $PACKAGE_CACHE, default /tmp/questbox-package,
# like the HIL kernel): apt-get install ./questbox.deb,
# the installed program alone (no checkout) shows its version, its boards and plays a quest,
# the HIL quest runs the installed program with its installed board and sounds in the VM,
# the units verify, the user/folder/enablement exist, a quest is stored in /var/lib/questbox;
# remove keeps it; purge keeps a final backup in /var/backups/questbox. Then, in another fresh
# root, an upgrade from an earlier commit's package (Tests/Package/old-package.sh, cached) with
# plays in place: refused while its backup cannot be made, then made with every play kept.
#   Tests/Package/run.sh [DEB]     (default: build one with scripts/package-deb.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
install_missing_packages debootstrap lintian e2fsprogs binutils
fail() { echo "FAIL package: $*" >&2; exit 1; }
# The upgrade test starts from the package of this commit (the first whose package installs
# in a fresh root); made before this checkout's build, which then leaves the shared release
# folder in this checkout's state.
old_commit=${PACKAGE_OLD_COMMIT:-a9bcce8}
old_deb=$(Tests/Package/old-package.sh "$old_commit")
deb=${1:-$(scripts/package-deb.sh)}
deb=$(realpath "$deb")
version=$(dpkg-deb -f "$deb" Version)
old_version=$(dpkg-deb -f "$old_deb" Version)
dpkg --compare-versions "$old_version" lt "$version" || fail "the old package's version $old_version is not older than $version"

# #49: the link's order file names no function of ours this build lacks (scripts/hot-code.sh
# writes it again after a rename).
scripts/hot-code.sh --check "$RELEASE_BIN/questbox" || fail "deploy/link/hot-code.order is stale (above)"

echo "package: lintian $deb" >&2
lintian --fail-on error,warning "$deb" 2>&1 | grep -v "running with root privileges" >&2 || true
lintian --fail-on error,warning "$deb" >/dev/null 2>&1 || fail "lintian reports errors or warnings (above)"

# A fresh root per run from a cached debootstrap of bookworm (minbase).
cache=$(Tests/Package/prepare.sh)
roots=()
sticks=()
cleanup() {
    local r m d
    for r in "${roots[@]}"; do
        for m in media/STICK proc dev/pts dev; do umount -l "$r/$m" 2>/dev/null || true; done
        rm -rf "$r"
    done
    for d in "${sticks[@]}"; do losetup -d "$d" 2>/dev/null || true; done
}
trap cleanup EXIT
# Sets $root to a fresh root from the cache, with both packages in its /tmp.
fresh_root() {
    root=$(mktemp -d /tmp/questbox-chroot.XXXXXX)
    roots+=("$root")
    tar -C "$root" -xf "$cache"
    chmod 755 "$root"
    mount -t proc proc "$root/proc"
    mount --bind /dev "$root/dev"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    cp "$deb" "$old_deb" "$root/tmp/"
    in_root apt-get update -qq >&2
}
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
apt_install() { in_root sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $1"; }
# The plays of /var/lib/questbox, read as the service's user, in full (history --json).
history_json() { in_root runuser -u questbox -- questbox history --json --data /var/lib/questbox; }
# How many plays a history --json holds (read from stdin).
count_plays() { grep -c '"estimatedSeconds"' || true; }
plays() { history_json | count_plays; }
play_as_service() {
    in_root runuser -u questbox -- sh -c "cd / && questbox routine import /usr/share/doc/questbox/examples/example-routine.json --data /var/lib/questbox >/dev/null && questbox simulate --events /usr/share/doc/questbox/examples/example-quest.events --data /var/lib/questbox >/dev/null"
}

echo "package: apt-get install ./$(basename "$deb") in a fresh root" >&2
fresh_root
apt_install "/tmp/$(basename "$deb")" > "$root/tmp/install.log" 2>&1 \
    || { cat "$root/tmp/install.log" >&2; fail "apt-get install failed"; }
grep -q "questbox: choose the board on the web app" "$root/tmp/install.log" || fail "the install did not say where to choose the board"

# The installed program alone: version, boards, a quest on the installed boards and sounds.
[[ $(in_root questbox --version) == "$version ($(dpkg-deb -f "$deb" Architecture))" ]] || fail "questbox --version is not $version (its architecture): $(in_root questbox --version)"
in_root sh -c "cd / && questbox boards list" > "$root/tmp/boards.txt"
for board in rpi4 rpi5 rpi-zero2w questbox-sim; do
    grep -q "^$board — .*(/usr/share/questbox/boards/$board.yaml)" "$root/tmp/boards.txt" || fail "boards list lacks $board: $(cat "$root/tmp/boards.txt")"
done
in_root test ! -e /work || fail "the root sees the checkout"
in_root sh -c "cd / && questbox routine import /usr/share/doc/questbox/examples/example-routine.json --data /tmp/try >/dev/null"
in_root sh -c "cd / && questbox simulate --events /usr/share/doc/questbox/examples/example-quest.events --data /tmp/try" > "$root/tmp/quest.txt" 2>&1 \
    || { cat "$root/tmp/quest.txt" >&2; fail "simulate --events failed"; }
grep -q "estimations\? saved" "$root/tmp/quest.txt" || { cat "$root/tmp/quest.txt" >&2; fail "the simulated quest did not finish"; }
# PAR-1's scrypt from libcrypto, which the program opens when a PIN is first hashed (Depends names it).
in_root sh -c "cd / && echo 2468 | questbox pin set --data /tmp/try >/dev/null && echo 2468 | questbox pin check --data /tmp/try >/dev/null" \
    || fail "pin set and check with the installed package (libcrypto)"
in_root questbox boards wiring rpi4 > "$root/tmp/wiring.svg" && grep -q "^<svg" "$root/tmp/wiring.svg" || fail "boards wiring rpi4"
in_root sh -c "man -w questbox >/dev/null 2>&1 || test -f /usr/share/man/man1/questbox.1.gz" || fail "no man page"

# What the maintainer scripts set up.
in_root systemd-analyze verify --man=no /usr/lib/systemd/system/questbox.service /usr/lib/systemd/system/questbox-web.service /usr/lib/systemd/system/questbox-link.service 2> "$root/tmp/verify.txt" \
    || { cat "$root/tmp/verify.txt" >&2; fail "systemd-analyze verify"; }
groups=$(in_root id -nG questbox | tr ' ' '\n' | sort | tr '\n' ' ')
[[ $groups == "audio gpio i2c questbox " ]] || fail "questbox's groups: $groups"
[[ $(in_root stat -c '%U %a' /var/lib/questbox) == "questbox 750" ]] || fail "/var/lib/questbox: $(in_root stat -c '%U %a' /var/lib/questbox)"
for unit in questbox questbox-web questbox-link; do
    [[ -L $root/etc/systemd/system/multi-user.target.wants/$unit.service ]] || fail "$unit.service is not enabled"
done
grep -q '^/etc/default/questbox$' <(dpkg-deb -I "$deb" conffiles) || fail "/etc/default/questbox is not a conffile"

# The HIL quest (Tests/HIL) against what the package installed: in the VM, the root's own
# /usr/bin/questbox with its installed board, sounds and routine, on the kernel's gpio-sim
# chip and loopback card; durations, ratings, LED, buzzer and every reveal sound checked.
echo "package: the HIL quest with the installed program, board and sounds" >&2
Tests/HIL/prepare.sh
Tests/HIL/vm.sh -- env HIL_INSTALLED_ROOT="$root" Tests/HIL/guest/scenarios "$root/usr/bin" quest > "$root/tmp/hil.txt" 2>&1 \
    || { cat "$root/tmp/hil.txt" >&2; fail "the HIL quest with the installed package"; }
hil=$(grep "^PASS quest: " "$root/tmp/hil.txt") || { cat "$root/tmp/hil.txt" >&2; fail "the HIL quest did not pass"; }

# The family's data: a quest played as the service's user, then remove and purge.
play_as_service
played=$(plays)
(( played > 0 )) || fail "no play stored in /var/lib/questbox"

# BACK-1, off the card: a stick on a loop device (ext4: this host's kernel may have no FAT;
# the HIL `usb` scenario has FAT and exFAT on Debian's kernel) mounted at the root's
# /media/STICK; the installed program, as the service's user, copies the newest backup there.
echo "package: the newest backup copied onto a loop-mounted stick" >&2
truncate -s 16M "$root/tmp/stick.img"
stick=$(losetup --find --show "$root/tmp/stick.img")
sticks+=("$stick")
mkfs.ext4 -q -L STICK "$stick"
mkdir -p "$root/media/STICK"
mount "$stick" "$root/media/STICK"
in_root chown questbox:questbox /media/STICK
in_root runuser -u questbox -- questbox backup --usb --data /var/lib/questbox > "$root/tmp/usb.txt" 2>&1 \
    || { cat "$root/tmp/usb.txt" >&2; fail "backup --usb onto the loop-mounted stick"; }
copied=$(sed -n 's/^copied to \(.*\) ([^()]*)$/\1/p' "$root/tmp/usb.txt")
[[ $copied == "/media/STICK/TimeQuest backups/"*.sqlite ]] || fail "backup --usb said: $(cat "$root/tmp/usb.txt")"
cmp "$root$copied" "$root/var/lib/questbox/backups/$(basename "$copied")" || fail "the stick's copy is not the box's backup"
umount "$root/media/STICK"
losetup -d "$stick"
sticks=()
in_root apt-get remove -y -qq questbox > "$root/tmp/remove.log" 2>&1 || { cat "$root/tmp/remove.log" >&2; fail "remove"; }
[[ -f $root/var/lib/questbox/questbox.sqlite ]] || fail "remove lost /var/lib/questbox"
ls "$root"/var/lib/questbox/backups/*.sqlite >/dev/null 2>&1 || fail "remove made no final backup"
apt_install "/tmp/$(basename "$deb")" >/dev/null 2>&1 || fail "reinstall"
[[ $(plays) == "$played" ]] || fail "after remove and reinstall: $(plays) plays, was $played"
in_root apt-get purge -y -qq questbox > "$root/tmp/purge.log" 2>&1 || { cat "$root/tmp/purge.log" >&2; fail "purge"; }
[[ ! -e $root/var/lib/questbox ]] || fail "purge left /var/lib/questbox"
ls "$root"/var/backups/questbox/questbox-final-*.sqlite >/dev/null 2>&1 || fail "purge kept no final backup"
grep -q "the last backup is kept as /var/backups/questbox/" "$root/tmp/purge.log" || fail "purge did not say where the backup is"

# An upgrade from the older package, in another fresh root, with the family's data in place.
echo "package: upgrade from $(basename "$old_deb") in a fresh root" >&2
fresh_root
apt_install "/tmp/$(basename "$old_deb")" > "$root/tmp/old-install.log" 2>&1 || { cat "$root/tmp/old-install.log" >&2; fail "installing $old_version"; }
play_as_service
play_as_service
history_json > "$root/tmp/before.json"
old_plays=$(count_plays < "$root/tmp/before.json")
(( old_plays > 0 )) || fail "no play stored by $old_version"
backups() { { find "$root/var/lib/questbox/backups" -name '*.sqlite' 2>/dev/null || true; } | wc -l; }
backups_before=$(backups)
# A backup that cannot be made stops the upgrade before the new version touches the data.
in_root mkdir -p /var/lib/questbox/backups
in_root chmod 000 /var/lib/questbox/backups
if apt_install "/tmp/$(basename "$deb")" > "$root/tmp/upgrade-refused.log" 2>&1; then
    fail "the upgrade went on although its backup could not be made"
fi
grep -q "the backup before the upgrade failed" "$root/tmp/upgrade-refused.log" || { cat "$root/tmp/upgrade-refused.log" >&2; fail "the refused upgrade did not say why"; }
[[ $(in_root dpkg-query -W -f='${Version}' questbox) == "$old_version" ]] || fail "after the refused upgrade questbox is not $old_version"
[[ $(in_root questbox --version) == "$old_version" ]] || fail "after the refused upgrade /usr/bin/questbox is not $old_version"
in_root chown questbox:questbox /var/lib/questbox/backups
in_root chmod 750 /var/lib/questbox/backups
# Now it can: the old version backs up, the new one takes over the same data.
apt_install "/tmp/$(basename "$deb")" > "$root/tmp/upgrade.log" 2>&1 || { cat "$root/tmp/upgrade.log" >&2; fail "the upgrade to $version"; }
[[ $(in_root questbox --version) == "$version ($(dpkg-deb -f "$deb" Architecture))" ]] || fail "after the upgrade questbox --version is $(in_root questbox --version)"
(( $(backups) == backups_before + 1 )) || fail "the upgrade made $(( $(backups) - backups_before )) backups, not 1"
history_json > "$root/tmp/after.json"
cmp -s "$root/tmp/before.json" "$root/tmp/after.json" || { diff "$root/tmp/before.json" "$root/tmp/after.json" >&2; fail "the history changed in the upgrade"; }
play_as_service
new_plays=$(plays)
(( new_plays > old_plays )) || fail "the upgraded box did not add its quest to the history ($new_plays plays)"
for unit in questbox questbox-web questbox-link; do
    [[ -L $root/etc/systemd/system/multi-user.target.wants/$unit.service ]] || fail "$unit.service is not enabled after the upgrade"
done

echo "PASS package: $(basename "$deb"): lintian clean; installed in a fresh bookworm root; version, boards, a quest, units, user, folder; the HIL quest on the installed files (${hil#PASS quest: }); $played plays kept by remove; purge kept the final backup; upgraded from $old_version with $old_plays plays all kept (a backup first; refused while it could not be made)"
