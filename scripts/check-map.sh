#!/usr/bin/env bash
# The README's code map names every target in Sources/ (a newcomer finds the room for a
# change from it). Run by test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for dir in Sources/*/; do
    name=$(basename "$dir")
    grep -qF "\`Sources/$name\`" README.md || missing+=("Sources/$name")
done
if ((${#missing[@]})); then
    echo "README.md: the code map (## The code) leaves out ${missing[*]}" >&2
    exit 1
fi
