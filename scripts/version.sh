#!/bin/sh
# The version of this checkout, for `questbox --version` and the Debian package:
#   the newest tag vX.Y.Z (or 0.1.0 before the first), the number of commits and the commit,
#   e.g. 0.1.0+git171.g4154163 (sorts upwards commit by commit, as dpkg compares versions);
#   ".dirty" when tracked files differ from the commit; "0.1.0+unknown" outside a git checkout.
#   scripts/version.sh                 prints it
#   scripts/version.sh --swift FILE    writes it as Swift source (only when it changed, so an
#                                      unchanged version rebuilds nothing)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
base=0.1.0
if tag=$(git -C "$root" describe --tags --match 'v[0-9]*' --abbrev=0 2>/dev/null); then
    base=${tag#v}
fi
if count=$(git -C "$root" rev-list --count HEAD 2>/dev/null) && hash=$(git -C "$root" rev-parse --short=7 HEAD 2>/dev/null); then
    version="$base+git$count.g$hash"
else
    version="$base+unknown"
fi
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    version="$version.dirty"
fi
if [ "${1:-}" = "--swift" ]; then
    file=${2:?"--swift needs a file to write"}
    new="// Written by scripts/version.sh at build time.
extension BuildVersion {
    public static let text = \"$version\"
}"
    if [ ! -f "$file" ] || [ "$(cat "$file")" != "$new" ]; then
        mkdir -p "$(dirname "$file")"
        printf '%s\n' "$new" > "$file.tmp" && mv "$file.tmp" "$file"
    fi
else
    echo "$version"
fi
