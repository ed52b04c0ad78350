#!/usr/bin/env bash
# Runs one command as root inside a throw-away VM (Debian's stock kernel under qemu with
# software emulation, the host's root filesystem as a writable overlay, gpio-sim and
# snd-aloop available; 2 vCPUs unless $HIL_CPUS says otherwise, so a scenario's player and
# the box do not take turns on one CPU) and exits with its status; its output is printed here. 125: the
# guest never finished.   Tests/HIL/vm.sh [-t SECONDS] -- command [args…]
# $HIL_ROOTFS: another root to boot over instead of the host's (Tests/Trixie: a trixie root),
# the command started in $HIL_CWD there (default: this folder, which that root must have).
# $HIL_ARCH=arm64: the arm64 machine instead (Tests/HIL/prepare-arm64.sh: trixie's arm64
# kernel under qemu-system-aarch64, a Cortex-A72 as in a Pi 4), booted over its own root.
set -euo pipefail
arch=${HIL_ARCH:-amd64}
case $arch in
amd64) cache=${HIL_CACHE:-/tmp/questbox-hil} ;;
arm64) cache=${HIL_ARM64_CACHE:-/tmp/questbox-hil-arm64} ;;
*) echo "hil: HIL_ARCH is amd64 or arm64, not $arch" >&2; exit 2 ;;
esac
timeout_s=240
while getopts "t:" o; do case $o in t) timeout_s=$OPTARG ;; *) exit 2 ;; esac; done
shift $((OPTIND - 1))
[[ ${1:-} == "--" ]] && shift
(($#)) || { echo "usage: $0 [-t SECONDS] -- command…" >&2; exit 2; }
[[ -f "$cache/ready" ]] || { echo "hil: run Tests/HIL/prepare$([[ $arch == amd64 ]] || echo -arm64).sh first" >&2; exit 2; }
abi=$(cat "$cache/abi")
job=$(mktemp -d /tmp/questbox-hil-job.XXXXXX)
trap 'rm -rf "$job"' EXIT
printf '%q ' "$@" > "$job/cmd"
echo >> "$job/cmd"
rootfs=${HIL_ROOTFS:-/}
[[ -x $rootfs/bin/bash ]] || { echo "hil: $rootfs has no /bin/bash to boot over" >&2; exit 2; }
echo "${HIL_CWD:-$(pwd)}" > "$job/cwd"
# The box under test must not share its CPU time with whatever else the host runs (a Pi
# runs the box alone): the emulator runs at nice -20 in a session of its own, whose
# autogroup gets nice -20 too (with autogroups on, a process's nice counts only against its
# own session's, so at nice -20 alone two `yes` in another session still took half the
# CPU and stalled the whole VM for 20 ms and more). Not real-time: SCHED_RR vCPU threads that
# the guest keeps busy for a second meet the host's real-time throttling, which stops them
# for the last 50 ms of each second (#50, #49: sampler stalls of ~50 ms at the same phase of
# every second, underruns of 50 − 15 ms). Nothing the scenarios assert changes.
priority=(setsid)
if nice -n -20 true 2>/dev/null; then priority+=(nice -n -20); fi
if [[ $arch == amd64 ]]; then
    machine=(qemu-system-x86_64 -cpu max -m "${HIL_MEM:-512}" -kernel "$cache/vmlinux")
    console=ttyS0
    modules=$cache/kernel/lib/modules/$abi
else
    # 1 GB: the package is installed into the guest's overlay, which lives in its memory.
    machine=(qemu-system-aarch64 -machine virt -cpu cortex-a72 -m "${HIL_MEM:-1024}" -kernel "$cache/Image")
    console=ttyAMA0
    modules=$cache/kernel/usr/lib/modules/$abi
fi
# Nothing of the host's left to write while it runs: on these hosts the host's disk writes
# stall the whole VM (a nice-19 `dd` beside the quest: sampler stalls up to 141 ms, 58
# underruns; two busy loops: none over 31 ms), so a build's writeback ends before it boots.
sync
status=0
timeout --foreground "$timeout_s" "${priority[@]}" "${machine[@]}" -accel tcg,thread=multi -smp "${HIL_CPUS:-2}" \
    -name questbox-hil,debug-threads=on \
    -nodefaults -no-user-config -nographic -no-reboot -serial "file:$job/console" \
    -initrd "$cache/initramfs.gz" \
    -append "console=$console quiet loglevel=3 panic=-1 rdinit=/init hil.job=$job" \
    -virtfs "local,path=$rootfs,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$modules,mount_tag=modules,security_model=none,readonly=on" \
    -virtfs "local,path=$job,mount_tag=job,security_model=none" </dev/null &
runner=$!
# The session's autogroup at nice -20 (root only; elsewhere the emulator runs as it can).
if [[ ${#priority[@]} -gt 1 ]]; then
    for _ in $(seq 400); do
        qemu=$(pgrep -P "$runner" | head -n 1 || true)
        # Once it is the emulator (setsid and nice have run), never the session that started it.
        if [[ -n $qemu && $(cat "/proc/$qemu/comm" 2>/dev/null) == qemu-system* ]]; then
            echo -20 > "/proc/$qemu/autogroup" || echo "hil: the emulator's autogroup stays at nice 0" >&2
            break
        fi
        sleep 0.05
    done
fi
wait "$runner" || status=$?
if [[ ! -f "$job/rc" ]]; then
    echo "hil: the guest did not finish (qemu status $status); console:" >&2
    tail -n 30 "$job/console" >&2 || true
    # What the scenario had printed by then says where it stood.
    for f in stdout stderr; do
        [[ -s "$job/$f" ]] && { echo "hil: the guest's $f so far:" >&2; tail -n 40 "$job/$f" >&2; }
    done
    exit 125
fi
# HIL_KEEP=DIR: what the scenario kept of attempts that did not pass (captures, logs).
if [[ -n ${HIL_KEEP:-} && -d "$job/keep" ]]; then mkdir -p "$HIL_KEEP" && cp -r "$job/keep"/. "$HIL_KEEP/"; fi
# HIL_VOICE_SEED=DIR: the voice clips the scenario rendered ($HIL_JOB/voice), kept for the next.
if [[ -n ${HIL_VOICE_SEED:-} && -d "$job/voice" ]]; then
    mkdir -p "$HIL_VOICE_SEED" && cp -n "$job/voice"/*.clip "$HIL_VOICE_SEED/" 2>/dev/null || true
fi
# HIL_OUT=DIR: what a scenario made to be looked at ($HIL_JOB/out in the guest: decoded frames).
if [[ -n ${HIL_OUT:-} && -d "$job/out" ]]; then mkdir -p "$HIL_OUT" && cp -r "$job/out"/. "$HIL_OUT/"; fi
cat "$job/stdout"
cat "$job/stderr" >&2
exit "$(cat "$job/rc")"
