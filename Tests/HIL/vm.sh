#!/usr/bin/env bash
# Runs one command as root inside a throw-away VM (Debian's stock kernel under qemu with
# software emulation, the host's root filesystem as a writable overlay, gpio-sim and
# snd-aloop available; 2 vCPUs unless $HIL_CPUS says otherwise, so a scenario's player and
# the box do not take turns on one CPU) and exits with its status; its output is printed here. 125: the
# guest never finished.   Tests/HIL/vm.sh [-t SECONDS] -- command [args…]
set -euo pipefail
cache=${HIL_CACHE:-/tmp/questbox-hil}
timeout_s=240
while getopts "t:" o; do case $o in t) timeout_s=$OPTARG ;; *) exit 2 ;; esac; done
shift $((OPTIND - 1))
[[ ${1:-} == "--" ]] && shift
(($#)) || { echo "usage: $0 [-t SECONDS] -- command…" >&2; exit 2; }
[[ -f "$cache/ready" ]] || { echo "hil: run Tests/HIL/prepare.sh first" >&2; exit 2; }
abi=$(cat "$cache/abi")
job=$(mktemp -d /tmp/questbox-hil-job.XXXXXX)
trap 'rm -rf "$job"' EXIT
printf '%q ' "$@" > "$job/cmd"
echo >> "$job/cmd"
pwd > "$job/cwd"
# The box under test must not share its CPU time with whatever else the host runs (a Pi
# runs the box alone): the emulator gets a higher scheduling priority where that is allowed
# (root), so a busy host slows the rest, not the VM. Nothing the scenarios assert changes.
priority=()
if nice -n -20 true 2>/dev/null; then priority=(nice -n -20); fi
status=0
timeout --foreground "$timeout_s" "${priority[@]}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m "${HIL_MEM:-512}" -smp "${HIL_CPUS:-2}" \
    -nodefaults -no-user-config -nographic -no-reboot -serial "file:$job/console" \
    -kernel "$cache/vmlinux" -initrd "$cache/initramfs.gz" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init hil.job=$job" \
    -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$cache/kernel/lib/modules/$abi,mount_tag=modules,security_model=none,readonly=on" \
    -virtfs "local,path=$job,mount_tag=job,security_model=none" </dev/null || status=$?
if [[ ! -f "$job/rc" ]]; then
    echo "hil: the guest did not finish (qemu status $status); console:" >&2
    tail -n 30 "$job/console" >&2 || true
    exit 125
fi
cat "$job/stdout"
cat "$job/stderr" >&2
exit "$(cat "$job/rc")"
