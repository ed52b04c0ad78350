#!/usr/bin/env bash
# The web app in a real browser (#13): Debian's Chromium, driven by Selenium (Debian's
# python3-selenium and chromium-driver), against `questbox-web` serving a store played by
# `questbox simulate` over the last weeks. Saves the README's screenshots in docs/screenshots.
#   Tests/Browser/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
install_missing_packages chromium chromium-driver python3-selenium curl
# Same flags as test.sh, so after it nothing is rebuilt.
swift build --build-tests -Xswiftc -warnings-as-errors >&2
bin=$(swift build --show-bin-path)
source Tests/web-rig.sh
rig_begin browser "$bin"

"$bin/questbox" routine import deploy/example-routine.json --data "$data" >/dev/null
/usr/bin/python3 Tests/Browser/fixture.py "$bin/questbox" "$data" deploy/example-quest.events
# The simulated box on the same store, for the kiosk to follow.
rig_start_box
rig_start_web --resources Sources/WebApp/Resources
mkdir -p docs/screenshots
Tests/Browser/axe.sh "$work/axe.min.js"
AXE_JS="$work/axe.min.js" /usr/bin/python3 Tests/Browser/pages.py "$base" docs/screenshots "$data/questbox.sock" \
    || { rig_logs; exit 1; }
