#!/usr/bin/env bash
# The web app's figures (#13), on the release build with five years of play in the store
# (store-bench's fixture: 29,216 estimations) and a simulated box running on it:
#   - start to ready: from spawning questbox-web to its first answer on /api/v1/state;
#   - wake-ups (context switches of all its threads) over 10 s idle with no page open
#     (goal 0), and with one kiosk page's event stream open;
#   - the first / and /stats after the start (five years read, nothing cached yet);
#   - server time of /, /stats and /api/v1/state under wrk at 1 and 8 connections, p50/p99
#     (wrk corrects for coordinated omission: one stall counts as the requests it held up)
#     (target ≤ 50 ms p99 on this 2-core machine);
#   - resident memory idle and after the load (target ≤ 40 MB);
#   - the box's CPU time while wrk hammers /api/v1/state at 8 connections.
#   Benchmarks/web-figures.sh [SECONDS per wrk run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
source scripts/setup.sh
install_missing_packages wrk curl
# Built as the package is (RELEASE_BUILD): the Swift runtime linked in, so memory is the product's.
for product in questbox-web questbox store-bench; do swift build "${RELEASE_BUILD[@]}" --product "$product" >&2; done
bin=$RELEASE_BIN
source Tests/web-rig.sh
rig_begin webfig "$bin"
"$bin/store-bench" --keep "$data" --iterations 1 >/dev/null
"$bin/questbox" routine import deploy/example-routine.json --data "$data" >/dev/null
rig_start_box

# Each thread's context switches (a wake-up or a preemption each), as "tid count" lines;
# `switches_since FILE PID` sums what every thread did since FILE was taken (a thread that
# ended meanwhile took its count with it: those are told apart, never subtracted).
switches() {
    local status
    for status in /proc/"$1"/task/*/status; do
        awk -v tid="$(basename "$(dirname "$status")")" '/ctxt_switches/ { s += $2 } END { print tid, s + 0 }' "$status" 2>/dev/null || true
    done
}
switches_since() {
    switches "$2" | awk 'NR == FNR { before[$1] = $2; next } { total += $2 - before[$1]; seen[$1] = 1 }
        END { for (t in before) if (!(t in seen)) ended++; printf "%d%s", total, ended ? " (" ended " threads ended meanwhile)" : "" }' "$1" -
}
rss_kib() { awk '/^VmRSS/ { print $2 }' /proc/"$1"/status; }
anon_kib() { awk '/^Anonymous/ { print $2 }' /proc/"$1"/smaps_rollup; }
hwm_kib() { awk '/^VmHWM/ { print $2 }' /proc/"$1"/status; }
cpu_ms() { awk '{ printf "%d", ($14 + $15) * 1000 / '"$(getconf CLK_TCK)"' }' /proc/"$1"/stat; }

start=$(date +%s%N)
rig_start_web
ready=$(( ($(date +%s%N) - start) / 1000000 ))

sleep 3
switches "$web" > "$work/switches"; sleep 10; idle_wakeups=$(switches_since "$work/switches" "$web")
idle_rss=$(rss_kib "$web")
idle_anon=$(anon_kib "$web")
curl -sN "$base/kiosk/events" > /dev/null &
kiosk=$!
sleep 2
switches "$web" > "$work/switches"; sleep 10; kiosk_wakeups=$(switches_since "$work/switches" "$web")
kill "$kiosk"; wait "$kiosk" 2>/dev/null || true
# The first read of each page after the start (five years of history, nothing cached yet);
# wrk's rows below are the pages served after it.
first_ms() { curl -fsS -o /dev/null -w '%{time_total}' "$base$1" | awk '{ printf "%.0f", $1 * 1000 }'; }
first_home=$(first_ms /)
first_stats=$(first_ms /stats)

echo "web-figures: release build (Swift runtime linked statically), $(nproc) cores, five years of play (29,216 estimations), a simulated box on the same store"
echo "start to ready                     ${ready} ms"
echo "wake-ups in 10 s idle, no page     ${idle_wakeups}"
echo "wake-ups in 10 s, one kiosk open   ${kiosk_wakeups}"
echo "resident memory idle               $((idle_rss / 1024)) MiB (${idle_rss} KiB; its own data $((idle_anon / 1024)) MiB, the rest the program's file pages)"
echo "first / after the start            ${first_home} ms"
echo "first /stats after the start       ${first_stats} ms"
printf "%-16s %5s %10s %10s %10s\n" "wrk ${seconds} s" "conns" "p50 ms" "p99 ms" "req/s"
latency() { awk -v want="$2" '$1 == want { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 } printf "%.2f", v }' "$1"; }
for path in / /stats /api/v1/state; do
    for conns in 1 8; do
        threads=$(( conns < 2 ? 1 : 2 ))
        box_cpu=$(cpu_ms "$box")
        wrk -t"$threads" -c"$conns" -d"${seconds}s" --latency "$base$path" > "$work/wrk.txt"
        box_cpu=$(( $(cpu_ms "$box") - box_cpu ))
        rps=$(awk '/^Requests\/sec/ { print $2 }' "$work/wrk.txt")
        errors=$(awk '/Non-2xx|Socket errors/ { print }' "$work/wrk.txt")
        printf "%-16s %5s %10s %10s %10s%s\n" "$path" "$conns" "$(latency "$work/wrk.txt" 50%)" "$(latency "$work/wrk.txt" 99%)" "$rps" \
            "$([[ $path == /api/v1/state && $conns == 8 ]] && echo "   (the box's CPU meanwhile: ${box_cpu} ms)")"
        [[ -z $errors ]] || echo "  $errors"
    done
done
echo "resident memory after the load     $(( $(rss_kib "$web") / 1024 )) MiB (its own data $(( $(anon_kib "$web") / 1024 )) MiB; peak $(( $(hwm_kib "$web") / 1024 )) MiB)"
# #31: 24 backups downloaded at once, signed in as the parent: streamed from the file, the
# web app's memory must stay far below its unit's MemoryMax (96 MiB).
echo 246802 | "$bin/questbox" pin set --data "$data" >/dev/null
"$bin/questbox" backup --data "$data" >/dev/null
jar="$work/cookies"
csrf=$(curl -fsS -c "$jar" "$base/parent" | sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' | head -1)
curl -fsS -o /dev/null -b "$jar" -c "$jar" --data-urlencode "csrf=$csrf" --data-urlencode "pin=246802" "$base/parent/sign-in"
backup=$(ls -S "$data/backups" | grep '\.sqlite$' | head -1)
before=$(rss_kib "$web"); peak=$before
downloads=()
for _ in $(seq 24); do
    curl -fsS -b "$jar" -o /dev/null --limit-rate 2M "$base/parent/backups/$backup" &
    downloads+=($!)
done
running() { local pid; for pid in "${downloads[@]}"; do kill -0 "$pid" 2>/dev/null && return 0; done; return 1; }
while running; do
    now=$(rss_kib "$web"); (( now > peak )) && peak=$now
    sleep 0.05
done
for pid in "${downloads[@]}"; do wait "$pid" || echo "a download failed"; done
echo "24 downloads of a $(( $(stat -c %s "$data/backups/$backup") / 1024 )) KiB backup at once: resident memory ${before} KiB before, at most ${peak} KiB during"
