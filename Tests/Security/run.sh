#!/usr/bin/env bash
# #31 and #47 end to end: a stranger on the network against the live simulated box and
# questbox-web (Tests/Security/takeover.py: the PIN claim; gate.py: the rooms' gate;
# local_user.py: a second uid on the Pi, run when this runs as root; flood.py: one address's
# floods of connections and event streams). Needs only the debug build test.sh made.
#   Tests/Security/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
install_missing_packages curl python3
# Same flags as test.sh, so after it nothing is rebuilt.
swift build --build-tests -Xswiftc -warnings-as-errors >&2
bin=$(swift build --show-bin-path)
source Tests/web-rig.sh
rig_begin security "$bin"
"$bin/questbox" routine import deploy/example-routine.json --data "$data" >/dev/null
echo 2468 | "$bin/questbox" pin set --data "$data" >/dev/null
rig_start_box
rig_start_web --resources Sources/WebApp/Resources
/usr/bin/python3 Tests/Security/gate.py "$base" "$bin/questbox" "$data" || { rig_logs; exit 1; }
/usr/bin/python3 Tests/Security/local_user.py "$base" "$data/questbox.sock" || { rig_logs; exit 1; }
/usr/bin/python3 Tests/Security/takeover.py "$base" "$data/questbox.sock" "$bin/questbox" "$data" || { rig_logs; exit 1; }
/usr/bin/python3 Tests/Security/flood.py "$base" || { rig_logs; exit 1; }
