#!/usr/bin/env bash
# The house rules a newcomer relies on, checked by test.sh:
# - the README's code map and docs/architecture.md name every target in Sources/ (a newcomer
#   finds the room for a change from either);
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
# #49: the architecture's table too (`Sources/QuestCore/Models` names QuestCore).
missing=()
for dir in Sources/*/; do
    name=$(basename "$dir")
    grep -qE "\`Sources/$name(\`|/)" docs/architecture.md || missing+=("Sources/$name")
done
if ((${#missing[@]})); then
    echo "docs/architecture.md: its table of folders leaves out ${missing[*]}" >&2
    failed=1
fi
if imports=$(grep -rn --include='*.swift' -E '^\s*(@_exported\s+)?import\s+Foundation\s*$' Sources/QuestCore | grep -v 'Sources/QuestCore/Models/Foundation+Core.swift'); then
    echo "Sources/QuestCore imports Foundation (the core uses FoundationEssentials only): $imports" >&2
    failed=1
fi
# #49: one definition of a control character (DisplayText.isControl); no file tests for one
# by hand (a C0 range, the Cc category, an isControl of its own).
if controls=$(grep -rnE --include='*.swift' '\$0\.value < 0x2[01]|generalCategory == \.control|func isControl' Sources | grep -v 'Sources/QuestCore/Models/DisplayText.swift'); then
    echo "a control-character test outside DisplayText.isControl (the one text rule): $controls" >&2
    failed=1
fi
# #49: every rule of docs/rules.md has a test that carries its id in its name (a reader finds
# the test from the rule; a rule whose tests were renamed away is noticed).
for id in $(grep -oE '^### [A-Z]+-[0-9]+' docs/rules.md | awk '{print $2}' | sort -u); do
    if ! grep -rqE "@(Test|Suite)\(\"[^\"]*\b$id\b" Tests; then
        echo "docs/rules.md: no test or suite in Tests/ carries $id in its name" >&2
        failed=1
    fi
done
# #49: the README stays short (the two commands and the pictures first, details in docs/).
if (( $(wc -l < README.md) > 180 )); then
    echo "README.md: $(wc -l < README.md) lines, more than 180 (move details to docs/)" >&2
    failed=1
fi
# #49: the box's runtime stays in rooms a reader takes in at once: no file over 300 lines, and
# the daemon wires its parts (each owning its state) with at most 12 stored properties.
for file in Sources/BoxRuntime/*.swift; do
    if (( $(wc -l < "$file") > 300 )); then
        echo "$file: $(wc -l < "$file") lines, more than 300 (split it by what it holds)" >&2
        failed=1
    fi
done
# Stored: a `let`/`var` at the class's own level, not static, with no body (a `{` before any `=`).
stored=$(awk '/^public final class BoxDaemon/ {inside=1; next} inside && /^}/ {exit}
    inside && /^    (public |private |internal |fileprivate |public internal\(set\) |private\(set\) )*(let|var) [a-zA-Z]+/ && !/static / && !/^[^=]*\{/ {n++}
    END {print n+0}' Sources/BoxRuntime/BoxDaemon.swift)
if (( stored > 12 )); then
    echo "Sources/BoxRuntime/BoxDaemon.swift: BoxDaemon has $stored stored properties, more than 12 (give the state to a part)" >&2
    failed=1
fi
exit $failed
