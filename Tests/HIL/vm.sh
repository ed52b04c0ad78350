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
# runs the box alone): the emulator runs SCHED_RR 1 where that is allowed (root), else at
# nice -20, so a busy host slows the rest, not the VM. At nice -20 alone, two `yes` on a
# 2-core host still stalled the whole VM for 20 ms and more (every quest attempt had a
# garbled reveal); at SCHED_RR none did. The kernel keeps 5% of each second for the rest.
# Nothing the scenarios assert changes.
priority=()
if chrt -r 1 true 2>/dev/null; then priority=(chrt -r 1); elif nice -n -20 true 2>/dev/null; then priority=(nice -n -20); fi
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
# The emulator's own threads above its vCPU threads (SCHED_RR 2 against 1): its main loop
# raises the guest's timer interrupts. With both vCPUs busy (a guest doing anything at all
# on both, even at its idle priority, as the box's voice renders) the main loop waited a whole
# round-robin slice behind them, the guest's timers fired up to 100 ms late and the box's
# sound underran; a Pi's timers never wait for its CPUs. vCPU threads are named "CPU n/TCG".
if [[ ${priority[0]:-} == chrt ]]; then
    last="CPU $((${HIL_CPUS:-2} - 1))/TCG"
    for _ in $(seq 400); do
        qemu=$(pgrep -P "$runner" | head -n 1 || true)
        if [[ -n $qemu ]] && grep -qsx "$last" /proc/"$qemu"/task/*/comm; then
            for task in /proc/"$qemu"/task/*; do
                grep -qs '^CPU .*/TCG$' "$task/comm" || chrt -r -p 2 "${task##*/}" >/dev/null 2>&1 || true
            done
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
# HIL_OUT=DIR: what a scenario made to be looked at ($HIL_JOB/out in the guest: decoded frames).
if [[ -n ${HIL_OUT:-} && -d "$job/out" ]]; then mkdir -p "$HIL_OUT" && cp -r "$job/out"/. "$HIL_OUT/"; fi
cat "$job/stdout"
cat "$job/stderr" >&2
exit "$(cat "$job/rc")"
