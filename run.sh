#!/usr/bin/env bash
# The main job. Today: the game core's demo — a scripted morning quest played on a
# simulated box through the real quest state machine. Extra arguments go to the demo
# (e.g. --trace for one JSON line per effect).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
swift build -c release --product questbox-demo >&2
exec .build/release/questbox-demo "$@"
