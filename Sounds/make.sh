#!/usr/bin/env bash
# Rebuilds every Sounds/<id>.wav from the recipe in Sounds/Recipe (a small additive
# synthesizer; the designs are in Designs.swift). Deterministic: the output is what is
# committed, and AudioTests checks that it still is.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product sound-recipe >&2
"$(swift build --show-bin-path)/sound-recipe" Sounds
