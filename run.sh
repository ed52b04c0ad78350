#!/usr/bin/env bash
# The main job: the box. With a board chosen ($QUESTBOX_BOARD) whose GPIO chip is present and
# healthy (`questbox doctor`), it runs the daemon. Otherwise the simulated box: in a terminal,
# the interactive box (keys for the buttons, LED and buzzer drawn, sound through the real
# engine to the null device); without a terminal, a scripted morning quest on the virtual
# clock, then the history and stats it left. Extra arguments go to `questbox run/simulate`.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
# One build whether or not there is a terminal (and the same one the package and the figures
# use). Without a terminal SwiftPM prints no progress bar, so say what the wait is.
qb=$RELEASE_BIN/questbox
if [[ ! -x $qb ]]; then
    echo "run: building questbox (release, first time: about 5-10 minutes on 2 cores)" >&2
fi
swift build "${RELEASE_BUILD[@]}" --product questbox >&2
if [[ -n "${QUESTBOX_BOARD:-}" ]] && "$qb" doctor >/dev/null 2>&1; then
    exec "$qb" run "$@"
fi
if [[ -t 0 && -t 1 ]]; then
    export QUESTBOX_DATA=${QUESTBOX_DATA:-$PWD/.simulated-box}
    if "$qb" routine list | grep -q "^no routines"; then "$qb" routine import deploy/example-routine.json; fi
    echo "no GPIO board here: the simulated box (set QUESTBOX_BOARD on a Raspberry Pi)" >&2
    exec "$qb" simulate "$@"
fi
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
export QUESTBOX_DATA=$data
echo "no GPIO board and no terminal: a scripted morning quest on the simulated box" >&2
"$qb" routine import deploy/example-routine.json
"$qb" simulate --events deploy/example-quest.events "$@"
"$qb" history
"$qb" stats
