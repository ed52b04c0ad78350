#!/usr/bin/env bash
# The house rules a newcomer relies on, checked by test.sh:
# - the README's code map names every target in Sources/ (a newcomer finds the room for a
#   change from it);
# - the game core imports only FoundationEssentials (through Models/Foundation+Core.swift):
#   no ICU, no I/O in QuestCore.
set -euo pipefail
cd "$(dirname "$0")/.."
failed=0
missing=()
for dir in Sources/*/; do
    name=$(basename "$dir")
    grep -qF "\`Sources/$name\`" README.md || missing+=("Sources/$name")
done
if ((${#missing[@]})); then
    echo "README.md: the code map (## The code) leaves out ${missing[*]}" >&2
    failed=1
fi
if imports=$(grep -rn --include='*.swift' -E '^\s*(@_exported\s+)?import\s+Foundation\s*$' Sources/QuestCore | grep -v 'Sources/QuestCore/Models/Foundation+Core.swift'); then
    echo "Sources/QuestCore imports Foundation (the core uses FoundationEssentials only): $imports" >&2
    failed=1
fi
exit $failed
