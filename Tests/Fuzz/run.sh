#!/usr/bin/env bash
# Fuzzes the three file formats the box reads from people (routine JSON, events scripts,
# board YAML; the first byte of an input picks the format) with libFuzzer and AddressSanitizer,
# starting from the committed corpus (Tests/Fuzz/corpus, which it leaves as it is).
#   Tests/Fuzz/run.sh [SECONDS]   (default 45; CI runs it with a fixed seed)
# Bounds, each a failure when broken: no crash, no input slower than 5 s (a hang), no single
# allocation over 64 MB and no more than 1 GB resident (ASan's shadow memory included).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-45}
swift build --scratch-path .build-fuzz --product FuzzInputs -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/found"
.build-fuzz/debug/FuzzInputs "$work/found" Tests/Fuzz/corpus -seed=1 -max_total_time="$seconds" -max_len=65536 \
    -timeout=5 -malloc_limit_mb=64 -rss_limit_mb=1024 -artifact_prefix="$work/" -print_final_stats=1 2> "$work/log" || {
    tail -40 "$work/log"
    for crash in "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-*; do
        [[ -e $crash ]] && { echo "fuzz: failing input (base64): $(base64 -w0 "$crash")"; }
    done
    echo "fuzz: FAILED"
    exit 1
}
runs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$work/log" | grep -o "[0-9]*$")
rss=$(grep -o "stat::peak_rss_mb: *[0-9]*" "$work/log" | grep -o "[0-9]*$")
echo "fuzz: $runs inputs in ${seconds} s, no crash, no hang, no allocation over 64 MB; peak resident ${rss} MB; $(ls "$work/found" | wc -l) new inputs (merge them with -merge=1 to keep them)"
