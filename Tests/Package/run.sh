#!/usr/bin/env bash
# The Debian package, tried as a Pi owner would: build it, lintian with no errors or warnings
# (the few overridden are justified in deploy/debian/lintian-overrides), then in a fresh
# bookworm root made with debootstrap (cached in $PACKAGE_CACHE, default /tmp/questbox-package,
# like the HIL kernel): apt-get install ./questbox.deb,
# the installed program alone (no checkout) shows its version, its boards and plays a quest,
# the units verify, the user/folder/enablement exist, a quest is stored in /var/lib/questbox;
# remove keeps it; purge keeps a final backup in /var/backups/questbox.
#   Tests/Package/run.sh [DEB]     (default: build one with scripts/package-deb.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
install_missing_packages debootstrap lintian
fail() { echo "FAIL package: $*" >&2; exit 1; }
deb=${1:-$(scripts/package-deb.sh)}
deb=$(realpath "$deb")
version=$(dpkg-deb -f "$deb" Version)

echo "package: lintian $deb" >&2
lintian --fail-on error,warning "$deb" 2>&1 | grep -v "running with root privileges" >&2 || true
lintian --fail-on error,warning "$deb" >/dev/null 2>&1 || fail "lintian reports errors or warnings (above)"

# A fresh root per run from a cached debootstrap of bookworm (minbase).
cache=${PACKAGE_CACHE:-/tmp/questbox-package}/bookworm-minbase.tar
mkdir -p "$(dirname "$cache")"
if [[ ! -f $cache ]]; then
    echo "package: debootstrap bookworm (once; cached in $cache)" >&2
    base=$(mktemp -d)
    chmod 755 "$base"  # a root's / that only root may enter locks out _apt and the service's user
    debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian >&2
    tar -C "$base" -cf "$cache.tmp" . && mv "$cache.tmp" "$cache"
    rm -rf "$base"
fi
root=$(mktemp -d /tmp/questbox-chroot.XXXXXX)
cleanup() {
    for m in proc dev/pts dev; do umount -l "$root/$m" 2>/dev/null || true; done
    rm -rf "$root"
}
trap cleanup EXIT
tar -C "$root" -xf "$cache"
chmod 755 "$root"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

echo "package: apt-get install ./$(basename "$deb") in the fresh root" >&2
in_root apt-get update -qq >&2
in_root sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb")" > "$root/tmp/install.log" 2>&1 \
    || { cat "$root/tmp/install.log" >&2; fail "apt-get install failed"; }
grep -q "choose the board in /etc/default/questbox" "$root/tmp/install.log" || fail "the install did not say where to choose the board"

# The installed program alone: version, boards, a quest on the installed boards and sounds.
[[ $(in_root questbox --version) == "$version" ]] || fail "questbox --version is not $version"
in_root sh -c "cd / && questbox boards list" > "$root/tmp/boards.txt"
for board in rpi4 rpi5 rpi-zero2w questbox-sim; do
    grep -q "^$board — .*(/usr/share/questbox/boards/$board.yaml)" "$root/tmp/boards.txt" || fail "boards list lacks $board: $(cat "$root/tmp/boards.txt")"
done
in_root test ! -e /work || fail "the root sees the checkout"
in_root sh -c "cd / && questbox routine import /usr/share/doc/questbox/examples/example-routine.json --data /tmp/try >/dev/null"
in_root sh -c "cd / && questbox simulate --events /usr/share/doc/questbox/examples/example-quest.events --data /tmp/try" > "$root/tmp/quest.txt" 2>&1 \
    || { cat "$root/tmp/quest.txt" >&2; fail "simulate --events failed"; }
grep -q "estimations\? saved" "$root/tmp/quest.txt" || { cat "$root/tmp/quest.txt" >&2; fail "the simulated quest did not finish"; }
in_root questbox boards wiring rpi4 > "$root/tmp/wiring.svg" && grep -q "^<svg" "$root/tmp/wiring.svg" || fail "boards wiring rpi4"
in_root sh -c "man -w questbox >/dev/null 2>&1 || test -f /usr/share/man/man1/questbox.1.gz" || fail "no man page"

# What the maintainer scripts set up.
in_root systemd-analyze verify --man=no /usr/lib/systemd/system/questbox.service /usr/lib/systemd/system/questbox-web.service 2> "$root/tmp/verify.txt" \
    || { cat "$root/tmp/verify.txt" >&2; fail "systemd-analyze verify"; }
groups=$(in_root id -nG questbox | tr ' ' '\n' | sort | tr '\n' ' ')
[[ $groups == "audio gpio i2c questbox " ]] || fail "questbox's groups: $groups"
[[ $(in_root stat -c '%U %a' /var/lib/questbox) == "questbox 750" ]] || fail "/var/lib/questbox: $(in_root stat -c '%U %a' /var/lib/questbox)"
for unit in questbox questbox-web; do
    [[ -L $root/etc/systemd/system/multi-user.target.wants/$unit.service ]] || fail "$unit.service is not enabled"
done
grep -q '^/etc/default/questbox$' <(dpkg-deb -I "$deb" conffiles) || fail "/etc/default/questbox is not a conffile"

# The family's data: a quest played as the service's user, then remove and purge.
in_root runuser -u questbox -- sh -c "cd / && questbox routine import /usr/share/doc/questbox/examples/example-routine.json --data /var/lib/questbox >/dev/null && questbox simulate --events /usr/share/doc/questbox/examples/example-quest.events --data /var/lib/questbox >/dev/null"
plays() { in_root runuser -u questbox -- questbox history --json --data /var/lib/questbox | grep -c '"estimatedSeconds"' || true; }
played=$(plays)
(( played > 0 )) || fail "no play stored in /var/lib/questbox"
in_root apt-get remove -y -qq questbox > "$root/tmp/remove.log" 2>&1 || { cat "$root/tmp/remove.log" >&2; fail "remove"; }
[[ -f $root/var/lib/questbox/questbox.sqlite ]] || fail "remove lost /var/lib/questbox"
ls "$root"/var/lib/questbox/backups/*.sqlite >/dev/null 2>&1 || fail "remove made no final backup"
in_root sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb")" >/dev/null 2>&1 || fail "reinstall"
[[ $(plays) == "$played" ]] || fail "after remove and reinstall: $(plays) plays, was $played"
in_root apt-get purge -y -qq questbox > "$root/tmp/purge.log" 2>&1 || { cat "$root/tmp/purge.log" >&2; fail "purge"; }
[[ ! -e $root/var/lib/questbox ]] || fail "purge left /var/lib/questbox"
ls "$root"/var/backups/questbox/questbox-final-*.sqlite >/dev/null 2>&1 || fail "purge kept no final backup"
grep -q "the last backup is kept as /var/backups/questbox/" "$root/tmp/purge.log" || fail "purge did not say where the backup is"
echo "PASS package: $(basename "$deb"): lintian clean; installed in a fresh bookworm root; version, boards, a quest, units, user, folder; $played plays kept by remove; purge kept the final backup"
