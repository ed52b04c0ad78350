#!/usr/bin/env bash
# Writes deploy/link/hot-code.order: the functions the box runs when it starts, idles and plays a
# quest, one symbol per line, for the linker to lay out first (scripts/setup.sh passes it as
# --symbol-ordering-file). Why: the kernel maps a program's code 64 kB at a time around each
# page it touches, so the few thousand functions the box runs, scattered over 22 MB of code,
# kept 13 MB of it resident; laid out together they fill a few MB (docs/daemon.md, memory).
# Two groups, in this order: what runs once the box is ready (idle, a quest, the world read
# again), then what only start-up runs. Once ready the box hands back the pages start-up
# mapped (StartUpMemory.release), and the code it then maps again lies together.
#
# Run it after changes that add code to the daemon's start, idle or press path; a function
# the file does not name still works, it only lands among the cold code. It takes about a
# minute on 2 cores: valgrind's callgrind runs the release daemon-figures (the BoxDaemon loop on fake
# buttons: start, idle, a quest) and `questbox run` up to its GPIO chip (argument parsing,
# the board profile, opening the store), and records every function entered.
#
# `scripts/hot-code.sh --check PROGRAM` (the package test runs it on the built questbox): fails
# when the file names a function of this project's own modules that PROGRAM no longer has (a
# rename, a move), so the file never goes stale unseen. Left out: callgrind's recursion marks,
# LLVM's numbered clones (`.123`, renumbered by any build) and DaemonFigures' own functions.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --check ]]; then
    program=${2:?usage: scripts/hot-code.sh --check PROGRAM}
    modules=$(ls Sources | paste -sd'|')   # Benchmarks' DaemonFigures is not among them
    wanted=$(sed "s/'[0-9]*\$//" deploy/link/hot-code.order | grep -E "^\\\$s[0-9]+($modules)" | grep -vE '\.[0-9]+$' | LC_ALL=C sort -u)
    stale=$(LC_ALL=C comm -23 <(printf '%s\n' "$wanted") <(nm "$program" | awk '{print $NF}' | LC_ALL=C sort -u))
    if [[ -n $stale ]]; then
        echo "deploy/link/hot-code.order names $(wc -l <<<"$stale") function(s) $program does not have (run scripts/hot-code.sh):" >&2
        swift demangle --simplified <<<"$stale" | head -20 >&2
        exit 1
    fi
    echo "hot-code: the order file's $(wc -l <<<"$wanted") functions of this project are all in $program" >&2
    exit 0
fi
source scripts/setup.sh
install_missing_packages valgrind
swift build "${RELEASE_BUILD[@]}" --product daemon-figures >&2
swift build "${RELEASE_BUILD[@]}" --product questbox >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the DWARF 5 of these programs: profile copies without it (the symbol
# names, all the order file needs, stay).
for program in daemon-figures questbox; do
    objcopy --strip-debug "$RELEASE_BIN/$program" "$work/$program"
done
# A profile is dumped when the box hands back start-up's pages: daemon.callgrind.1 is start-up,
# the last dump what ran after it.
profile() {
    local name=$1
    shift
    valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no --dump-instr=no \
        --dump-before='$s10BoxRuntime13StartUpMemoryO7release*' \
        --callgrind-out-file="$work/$name.callgrind" "$@" >"$work/$name.log" 2>&1 || true
    compgen -G "$work/$name.callgrind*" >/dev/null || { cat "$work/$name.log" >&2; echo "hot-code: no profile from $name" >&2; exit 1; }
}

echo "hot-code: the daemon on fake buttons: start, idle, a quest (under valgrind)" >&2
"$work/daemon-figures" --prepare "$work/quest.sqlite"
profile daemon "$work/daemon-figures" --measure "$work/quest.sqlite" --idle-seconds 1 --play
grep -q '"residentAfterQuestMB"' "$work/daemon.log" || { cat "$work/daemon.log" >&2; echo "hot-code: the profiled quest did not finish" >&2; exit 1; }

echo "hot-code: questbox run up to its GPIO chip" >&2
mkdir -p "$work/data"
QUESTBOX_DATA=$work/data profile run "$work/questbox" run --board "$PWD/Boards/questbox-sim.yaml"
grep -q "questbox-sim\|gpio\|GPIO" "$work/run.log" || { cat "$work/run.log" >&2; echo "hot-code: questbox run did not get to its GPIO chip" >&2; exit 1; }

# Every function entered (fn=) or called (cfn=), by its symbol; addresses with no symbol out.
functions() { sed -n 's/^c\?fn=//p' "$@" | grep -v '^0x' | LC_ALL=C sort -u; }
[[ -s $work/daemon.callgrind.1 ]] || { echo "hot-code: no dump at StartUpMemory.release: the daemon never got ready" >&2; exit 1; }
after_ready=$(ls "$work"/daemon.callgrind* | grep -v 'callgrind\.1$')
functions $after_ready >"$work/ready.order"
functions "$work"/*.callgrind* | LC_ALL=C comm -23 - "$work/ready.order" >"$work/start.order"
(($(wc -l <"$work/ready.order") > 500)) || { echo "hot-code: only $(wc -l <"$work/ready.order") functions ran after start-up" >&2; exit 1; }
cat "$work/ready.order" "$work/start.order" >"$work/hot-code.order"
count=$(wc -l <"$work/hot-code.order")
((count > 1000)) || { echo "hot-code: only $count functions recorded: not written" >&2; exit 1; }
mv "$work/hot-code.order" deploy/link/hot-code.order
# SwiftPM does not know the link reads this file: remove the linked programs so the next build
# links them again with the new order.
rm -f "$RELEASE_BIN"/questbox "$RELEASE_BIN"/questbox-web "$RELEASE_BIN"/daemon-figures
echo "hot-code: deploy/link/hot-code.order names $count functions, $(wc -l <"$work/ready.order") run once the box is ready (the next release build lays them out)" >&2
