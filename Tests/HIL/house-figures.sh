#!/usr/bin/env bash
# #34's side-by-side figures: the box's press timing in one quest without the house, then with
# `questbox link` publishing to Mosquitto beside it in the guest, the broker flooded, paused
# with SIGSTOP and killed. Prints a Markdown table (docs/mqtt.md shows the latest). Not part
# of CI: about 8 minutes, plus a release build the first time.   Tests/HIL/house-figures.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
install_missing_packages mosquitto mosquitto-clients
Tests/HIL/prepare.sh
# Built as the package is (RELEASE_BUILD), like Tests/HIL/figures.sh.
swift build "${RELEASE_BUILD[@]}" --product questbox >&2
swift build "${RELEASE_BUILD[@]}" --product questbox-link >&2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
Tests/HIL/vm.sh -t 900 -- Tests/HIL/guest/house-figures-run "$RELEASE_BIN" > "$out"
python3 - "$out" "$(uname -m)" "$(nproc)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))] if v else float("nan")
def trio(v): return f"{pct(v, 50):.3f} / {pct(v, 99):.3f} / {max(v, default=float('nan')):.3f}"
print(f"Measured in one VM run: Debian's 6.1 kernel under qemu TCG (2 vCPUs on a {sys.argv[3]}-core {sys.argv[2]} host), gpio-sim, "
      f"a release build of `questbox run` and `questbox link`, Mosquitto in the guest; {r['tasks_per_stretch']} tasks per row, one quest. "
      f"The broker heard {r['states_heard']} state messages.\n")
print("| the house | press → LED line set, kernel to kernel: p50 / p99 / max (ms) | the same in stages, p50: interrupt → loop woken · woken → on a CPU · on a CPU → line set (ms) | stored duration − traced interval: p50 / p99 / max (ms) |")
print("|---|---|---|---|")
for s in r["stretches"]:
    led = trio(s["led_ms"]) + f" (n={len(s['led_ms'])}{', ' + str(s['led_missing']) + ' unmatched' if s['led_missing'] else ''})"
    dur = trio(s["duration_error_ms"]) + f" (n={len(s['duration_error_ms'])}{', ' + str(s['durations_unmatched']) + ' unmatched' if s['durations_unmatched'] else ''})"
    stages = " · ".join(f"{pct([x[i] for x in s['led_stages']], 50):.2f}" for i in range(3)) + f" (n={len(s['led_stages'])})"
    print(f"| {s['name']} | {led} | {stages} | {dur} |")
PY
