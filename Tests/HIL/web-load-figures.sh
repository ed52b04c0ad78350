#!/usr/bin/env bash
# The box unaffected by its web app (#13): in one VM run, the box's timing error and press →
# LED with questbox-web idle beside it and with wrk hammering the web's /stats in the guest,
# rounds alternating. Prints a Markdown table (docs/web.md "Web figures" shows the latest). Not
# part of CI: about 10 minutes, plus a release build the first time.
#   Tests/HIL/web-load-figures.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
install_missing_packages wrk curl
Tests/HIL/prepare.sh
# Built as the package is (RELEASE_BUILD): the Swift runtime linked in.
for product in questbox questbox-web store-bench; do swift build "${RELEASE_BUILD[@]}" --product "$product" >&2; done
bin=$RELEASE_BIN
# Five years of play (store-bench's fixture), made on the host; the guest copies it.
store=.build/hil/web-load-store
rm -rf "$store"
mkdir -p "$store"
"$bin/store-bench" --keep "$store" --iterations 1 >/dev/null
out=$(mktemp)
trap 'rm -f "$out"; rm -rf "$store"' EXIT
Tests/HIL/vm.sh -t 1200 -- Tests/HIL/guest/web-load-run "$bin" "$store" > "$out"
python3 - "$out" "$(uname -m)" "$(nproc)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
quiet, loaded = r["quiet"], r["wrk"]
print(f"Measured in one VM run: Debian's 6.1 kernel under qemu TCG (2 vCPUs on a {sys.argv[3]}-core {sys.argv[2]} host), gpio-sim, snd-aloop; "
      "release builds; the box (`questbox run`, its loop at SCHED_FIFO 8 as packaged) and questbox-web (nice 5, as its unit) on one store "
      "with five years of play; rounds alternating web idle / wrk -t2 -c8 on /stats inside the guest.\n")
print("| figure | web idle | wrk hammering /stats |")
print("|---|---|---|")
def cell(side, key):
    return f"{side[key + '_p50_ms']:.3f} / {side[key + '_p99_ms']:.3f} / {side[key + '_max_ms']:.3f} (n={side[key + '_n']})"
print(f"| timing error, intervals of 0.5–8 s, box vs traced interrupts: p50 / p99 / max (ms) | {cell(quiet, 'timing')} | {cell(loaded, 'timing')} |")
missing = lambda side: f", {side['led_missing']} unmatched" if side["led_missing"] else ""
print(f"| press → LED line set, kernel to kernel: p50 / p99 / max (ms) | {cell(quiet, 'led')}{missing(quiet)} | {cell(loaded, 'led')}{missing(loaded)} |")
rounds = r["wrk_rounds"]
print("\nthe load, per loaded round (wrk's own view inside the guest): " + "; ".join(
    f"{w['requests_per_s']:.0f} requests/s, p99 {w['p99_ms']:.0f} ms" + (f", {w['non_2xx']} not 2xx" if w["non_2xx"] else "") for w in rounds))
PY
