# The web app's rig for the scripts that drive it (Tests/Browser/run.sh, Tests/APIFuzz/run.sh,
# Benchmarks/web-figures.sh), sourced: a work folder removed on exit, `questbox simulate` on
# a store there, `questbox-web` on a random local port beside it.
#   source Tests/web-rig.sh; rig_begin NAME BIN_DIR; … rig_start_box; rig_start_web [ARGS…]
# Sets: $work, $data (the store's folder), $box and $web (their pids), $port, $base.
# With RIG_WALL_CLOCK="YYYY-MM-DD HH:MM:SS" the web app sees its wall clock start there
# (libfaketime, monotonic clocks left alone), so pages drawn from a fixture played for that day
# do not move with the real date. The box keeps the real clock: under libfaketime its event
# loop took no presses (libfaketime also wraps poll and the timers).

rig_begin() {
    rig_name=$1
    rig_bin=$2
    work=$(mktemp -d "/tmp/questbox-$rig_name.XXXXXX")
    data="$work/data"
    web=""
    box=""
    trap rig_cleanup EXIT
    rig_env=()
    # faketime's own wrapper: it sets up the shared clock libfaketime needs to run on from
    # the start time (preloaded alone, the clock stood still and Swift programs lost their
    # arguments). It runs the program as its child, which rig_cleanup ends too.
    if [[ -n ${RIG_WALL_CLOCK:-} ]]; then
        command -v faketime >/dev/null || { echo "$rig_name: faketime is not installed" >&2; exit 1; }
        rig_env=(faketime --exclude-monotonic -f "@$RIG_WALL_CLOCK")
    fi
}

# Runs on exit under the caller's `set -e`: a process that already ended must not turn the
# script's status into kill's (xargs's 123 failed a passing API fuzz run under load).
rig_cleanup() {
    local pid
    for pid in $web $box; do
        pkill -P "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
    done
    jobs -p | xargs -r kill 2>/dev/null || true
    rm -rf "$work"
}

# The simulated box on $data (its socket beside the store), reminders off so no chime or
# yellow light comes unasked. Keys would come on stdin; the scripts press over the socket,
# so stdin is a FIFO held open (no key, no end of input) until the script ends.
rig_start_box() {
    "$rig_bin/questbox" settings set reminders false --data "$data" >/dev/null
    # Her pages open to every browser, as on a box from before PRIV-1: the scripts drive them
    # from browsers nobody paired. Their paired-only default is tested where it is set
    # (Tests/Security/gate.py, the browser's pairing at the box, WebAppTests).
    "$rig_bin/questbox" settings set web.player-pages open --data "$data" >/dev/null
    # GAME-9: the player has seen how it works, so a LOCK starts the quest the scripts play;
    # the intro's pages are in the parent's screens gallery, checked like every screen.
    "$rig_bin/questbox" settings set intro false --data "$data" >/dev/null
    mkfifo "$work/keys"
    "$rig_bin/questbox" simulate --data "$data" < "$work/keys" > "$work/box.log" 2>&1 &
    box=$!
    exec 3> "$work/keys"
    for _ in $(seq 100); do [[ -S "$data/questbox.sock" ]] && break; sleep 0.1; done
    [[ -S "$data/questbox.sock" ]] || { cat "$work/box.log"; echo "$rig_name: the simulated box did not start" >&2; exit 1; }
}

# questbox-web on $data (extra arguments passed on), ready once it answers /api/v1/state
# (asked every 10 ms, so a start-to-ready time taken around this call is that close).
rig_start_web() {
    port=$((20000 + RANDOM % 20000))
    base="http://127.0.0.1:$port"
    "${rig_env[@]}" "$rig_bin/questbox-web" --listen 127.0.0.1 --port "$port" --data "$data" "$@" > "$work/web.log" 2>&1 &
    web=$!
    for _ in $(seq 1000); do
        curl -fsS -o /dev/null "$base/api/v1/state" 2>/dev/null && return 0
        kill -0 "$web" 2>/dev/null || break
        sleep 0.01
    done
    cat "$work/web.log"
    echo "$rig_name: questbox-web did not start" >&2
    exit 1
}

# The last lines of both logs, after a failure.
rig_logs() {
    echo "--- the simulated box:"
    tail -n 20 "$work/box.log"
    echo "--- questbox-web:"
    tail -n 20 "$work/web.log"
}
