#!/usr/bin/env bash
# The web app in a real browser (#13): Debian's Chromium, driven by Selenium (Debian's
# python3-selenium and chromium-driver), against `questbox-web` serving a store played by
# `questbox simulate` over the last weeks. Its screenshots go to a temporary folder (a test
# never writes into the checkout); UPDATE_SCREENSHOTS=1 copies them into docs/screenshots
# for the README. The web app's pages are looked at on a fixed day (the fixture is played for
# it and the web app's wall clock starts there), so those pictures do not move with the date;
# the kiosk shows the box's screens, on the real clock.
#   [UPDATE_SCREENSHOTS=1] Tests/Browser/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
install_missing_packages chromium chromium-driver python3-selenium curl faketime
# Same flags as test.sh, so after it nothing is rebuilt.
swift build --build-tests -Xswiftc -warnings-as-errors >&2
bin=$(swift build --show-bin-path)
source Tests/web-rig.sh
day=2026-11-23
export RIG_WALL_CLOCK="$day 07:55:00"
rig_begin browser "$bin"

"$bin/questbox" routine import deploy/example-routine.json --data "$data" >/dev/null
/usr/bin/python3 Tests/Browser/fixture.py "$bin/questbox" "$data" deploy/example-quest.events "$day"
# The simulated box on the same store, for the kiosk to follow.
rig_start_box
rig_start_web --resources Sources/WebApp/Resources
# A fresh install beside it (#32): questbox-web on an empty data folder, no box, for the first
# run's board step (ended with the rig's other jobs).
mkdir -p "$work/fresh"
fresh_port=$((port + 1))
"$bin/questbox-web" --listen 127.0.0.1 --port "$fresh_port" --data "$work/fresh" --resources Sources/WebApp/Resources \
    > "$work/fresh-web.log" 2>&1 &
for _ in $(seq 1000); do curl -fsS -o /dev/null "http://127.0.0.1:$fresh_port/api/v1/state" 2>/dev/null && break; sleep 0.01; done
# The same store's web app on the real clock, like the box's (#48: a quest paused and picked
# up today is today's for both).
now_port=$((port + 2))
"$bin/questbox-web" --listen 127.0.0.1 --port "$now_port" --data "$data" --resources Sources/WebApp/Resources \
    > "$work/now-web.log" 2>&1 &
for _ in $(seq 1000); do curl -fsS -o /dev/null "http://127.0.0.1:$now_port/api/v1/state" 2>/dev/null && break; sleep 0.01; done
shots="$work/screenshots"
mkdir -p "$shots"
Tests/Browser/axe.sh "$work/axe.min.js"
QUESTBOX_BIN="$bin/questbox" QUESTBOX_DATA="$data" FRESH_BASE="http://127.0.0.1:$fresh_port" NOW_BASE="http://127.0.0.1:$now_port" AXE_JS="$work/axe.min.js" /usr/bin/python3 Tests/Browser/pages.py "$base" "$shots" "$data/questbox.sock" \
    || { rig_logs; exit 1; }
if [[ ${UPDATE_SCREENSHOTS:-0} == 1 ]]; then
    cp "$shots"/*.png docs/screenshots/
    echo "screenshots copied into docs/screenshots"
fi
