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
work=$(mktemp -d /tmp/questbox-browser.XXXXXX)
web=""
box=""
cleanup() { [[ -n $web ]] && kill "$web" 2>/dev/null; [[ -n $box ]] && kill "$box" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

data="$work/data"
"$bin/questbox" routine import deploy/example-routine.json --data "$data" >/dev/null
/usr/bin/python3 Tests/Browser/fixture.py "$bin/questbox" "$data" deploy/example-quest.events

# The simulated box on the same store (its socket beside the data), for the kiosk to follow;
# keys would come on stdin, the test presses over the socket instead.
"$bin/questbox" settings set reminders false --data "$data" >/dev/null
mkfifo "$work/keys"
"$bin/questbox" simulate --data "$data" < "$work/keys" > "$work/box.log" 2>&1 &
box=$!
exec 3> "$work/keys"     # no key ever comes; held open (no end of input) until this script ends
for _ in $(seq 100); do [[ -S "$data/questbox.sock" ]] && break; sleep 0.1; done
[[ -S "$data/questbox.sock" ]] || { cat "$work/box.log"; echo "browser: the simulated box did not start" >&2; exit 1; }

port=$((20000 + RANDOM % 20000))
"$bin/questbox-web" --listen 127.0.0.1 --port "$port" --data "$data" --resources Sources/WebApp/Resources \
    > "$work/web.log" 2>&1 &
web=$!
for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$port/api/v1/state" >/dev/null 2>&1 && break
    kill -0 "$web" 2>/dev/null || { cat "$work/web.log"; echo "browser: questbox-web did not start" >&2; exit 1; }
    sleep 0.1
done
mkdir -p docs/screenshots
Tests/Browser/axe.sh "$work/axe.min.js"
AXE_JS="$work/axe.min.js" /usr/bin/python3 Tests/Browser/pages.py "http://127.0.0.1:$port" docs/screenshots "$data/questbox.sock" \
    || { echo "--- the simulated box:"; tail -n 20 "$work/box.log"; echo "--- questbox-web:"; tail -n 20 "$work/web.log"; exit 1; }
