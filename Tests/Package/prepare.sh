#!/usr/bin/env bash
# The fresh bookworm root the package stage installs into, made once by debootstrap (minbase)
# and kept as a tar in $PACKAGE_CACHE (default /tmp/questbox-package); prints the tar's path.
# Run by Tests/Package/run.sh, and by CI beside its first stages (.ci/later).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
install_missing_packages debootstrap
cache=${PACKAGE_CACHE:-/tmp/questbox-package}/bookworm-minbase.tar
mkdir -p "$(dirname "$cache")"
exec 9> "$cache.lock"
flock 9
if [[ ! -f $cache ]]; then
    echo "package: debootstrap bookworm (once; cached in $cache)" >&2
    base=$(mktemp -d)
    trap 'rm -rf "$base"' EXIT
    chmod 755 "$base"  # a root's / that only root may enter locks out _apt and the service's user
    debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian >&2
    tar -C "$base" -cf "$cache.tmp" . && mv "$cache.tmp" "$cache"
fi
echo "$cache"
