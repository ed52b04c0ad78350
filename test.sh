#!/usr/bin/env bash
# Every test: builds (warnings are errors) and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
scripts/check-house.sh
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build
