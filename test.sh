#!/usr/bin/env bash
# Every test: builds (warnings are errors) and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
# The link's tests (#34) run a real Mosquitto and make a test CA with openssl.
install_missing_packages mosquitto mosquitto-clients openssl
scripts/check-house.sh
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build
