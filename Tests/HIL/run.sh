#!/usr/bin/env bash
# The hardware-in-the-loop scenarios (#6): each boots a fresh VM with the questbox gpio-sim
# chip and the ALSA loopback card and runs the real `questbox` built on this host.
#   Tests/HIL/run.sh [SCENARIO…]      (default: all)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
# The house scenario's broker and its clients run in the guest from this root.
install_missing_packages mosquitto mosquitto-clients
# The usb scenario's sticks: FAT and exFAT made on loop devices, a failing one by device-mapper.
install_missing_packages dosfstools exfatprogs dmsetup
Tests/HIL/prepare.sh
# Same flags as test.sh, so after it nothing is rebuilt.
swift build --product questbox -Xswiftc -warnings-as-errors >&2
bin=$(swift build --show-bin-path)
scenarios=("$@")
((${#scenarios[@]})) || scenarios=(doctor doctor-missing-line held-line readonly usb quest house underrun bounce midnight crash live reveal intro reminder no-screen display)
# `house` plays the programs a family runs: the release build the package is made of (the
# package stage later only links them again). Its flood keeps the broker busy in the guest;
# beside it the debug box and link took another vCPU and a half, and with both vCPUs busy for
# half a minute the host's real-time throttling stopped the whole VM for tens of
# milliseconds each second (11 underruns of 12-41 ms, docs/hil.md).
release_bin=
if [[ " ${scenarios[*]} " == *" house "* ]]; then
    for product in questbox questbox-link; do swift build "${RELEASE_BUILD[@]}" --product "$product" >&2; done
    release_bin=$RELEASE_BIN
fi
# #35's clips for the example routine, rendered here once with this build (guest/scenarios'
# import_routine copies them in and adds what the scenarios render, through vm.sh).
export HIL_VOICE_SEED=$(pwd)/.build/hil/voice-seed
rm -rf "$HIL_VOICE_SEED" && mkdir -p "$HIL_VOICE_SEED"
voice_data=$(mktemp -d)
"$bin/questbox" routine import deploy/example-routine.json --data "$voice_data" >/dev/null
"$bin/questbox" voice prepare --data "$voice_data" >/dev/null
cp "$voice_data"/voice/*.clip "$HIL_VOICE_SEED/"
rm -rf "$voice_data"
failed=0
# Each scenario's output is kept, and a failed one's verdict lines are said again at the end:
# CI shows the tail of a long run, and a failure's reason (a house attempt's problems) lay
# hundreds of lines above it.
logs=.build/hil/logs
rm -rf "$logs" && mkdir -p "$logs"
why=()
for s in "${scenarios[@]}"; do
    # 10 minutes a scenario: the ones that run an attempt again when the host stalled the VM
    # (quest, bounce, reminder) take about a minute an attempt, more on a loaded host; three
    # stalled bounce attempts went past vm.sh's 4 minutes in a CI run.
    programs=$bin
    [[ $s != house ]] || programs=$release_bin
    began=$SECONDS
    status=0
    Tests/HIL/vm.sh -t 600 -- env HIL_VOICE_SEED="$HIL_VOICE_SEED" Tests/HIL/guest/scenarios "$programs" "$s" 2>&1 \
        | tee "$logs/$s.log" || status=$?
    if ((status != 0)); then
        failed=$((failed + 1))
        why+=("$s: $(grep -aE '^(FAIL|problem:|inconclusive|house attempt|underruns logged|import → quest light)' "$logs/$s.log" | tail -n 20 | cut -c1-300 || true)")
    fi
    echo "hil: $s took $((SECONDS - began)) s" >&2
done
for w in "${why[@]}"; do printf 'hil: why %s\n' "$w"; done
echo "hil: ${#scenarios[@]} scenario(s), $failed failed"
((failed == 0))
