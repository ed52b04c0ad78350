#!/usr/bin/env bash
# The package as an earlier commit built it, for the upgrade test: prints the .deb's path.
#   Tests/Package/old-package.sh COMMIT
# Built once per commit and kept in $PACKAGE_CACHE (default /tmp/questbox-package), like the
# debootstrap root. The build uses that commit's own scripts/package-deb.sh in a worktree,
# with the release build folder shared with this checkout: the dependencies are built once,
# only this project's modules are compiled twice (the worktree's, then this checkout's).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
commit=$(git rev-parse --verify "${1:?usage: $0 COMMIT}^{commit}")
short=$(git rev-parse --short=7 "$commit")
cache=${PACKAGE_CACHE:-/tmp/questbox-package}/old-$short
shopt -s nullglob
debs=("$cache"/questbox_*.deb)
if ((${#debs[@]} == 1)); then
    echo "${debs[0]}"
    exit 0
fi
echo "package: building the package of $short for the upgrade test (once; cached in $cache)" >&2
tree=$(mktemp -d /tmp/questbox-old.XXXXXX)
trap 'git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"; git worktree prune' EXIT
git worktree add --detach --force "$tree" "$commit" >/dev/null 2>&1
# That commit's package script builds in .build/deb-build: point it at this checkout's folder
# (by its real path: the compiler's module cache refuses one folder under two names). The
# edit is hidden from git so the old build's version does not end in .dirty.
shared=$RELEASE_DIR
mkdir -p "$shared"
# With this checkout's release flags too (the linker's among them): flags that differ compile
# every module again, dependencies included.
sed -i "s|-c release --static-swift-stdlib --scratch-path .build/deb-build|${RELEASE_BUILD[*]}|" "$tree/scripts/package-deb.sh"
grep -q -- "--scratch-path $shared" "$tree/scripts/package-deb.sh" || { echo "package: $short's package script has no '-c release --static-swift-stdlib --scratch-path .build/deb-build' to replace with this checkout's release flags" >&2; exit 1; }
git -C "$tree" update-index --skip-worktree scripts/package-deb.sh
rm -rf "$cache.tmp"
"$tree/scripts/package-deb.sh" "$cache.tmp" >/dev/null
rm -rf "$cache" && mv "$cache.tmp" "$cache"
debs=("$cache"/questbox_*.deb)
((${#debs[@]} == 1)) || { echo "package: $short's build left ${#debs[@]} packages in $cache" >&2; exit 1; }
echo "${debs[0]}"
