#!/usr/bin/env bash
# The side-by-side figures of #6: this project's `questbox run` and a gpiozero 2.x program
# watching the same gpio-sim chip in one VM run. Prints a Markdown table (docs/hil.md shows the
# latest). Not part of CI: about 10 minutes, plus a release build the first time.
#   Tests/HIL/figures.sh
#   FIGURES_BOARD=questbox-sim-oled Tests/HIL/figures.sh   the same with the box drawing every
#       screen on an SSD1306 (i2c-stub at 0x3c), to show its timing is unchanged (#14)
#   FIGURES_VOICE=off Tests/HIL/figures.sh   the box's voice off (default: auto, which speaks on
#       a board with no screen), to show the voice costs the presses nothing (#35)
#   FIGURES_SYSCALLS=1 Tests/HIL/figures.sh   a diagnosis, not figures: every system call of the
#       guest traced too, and the loop's way from getting a CPU to its line set printed
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
cache=${HIL_CACHE:-/tmp/questbox-hil}
Tests/HIL/prepare.sh
# Built as the package is (RELEASE_BUILD): the Swift runtime linked in, so memory compares like for like.
swift build "${RELEASE_BUILD[@]}" --product questbox >&2
bin=$RELEASE_BIN
venv="$cache/gpiozero-venv"
if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet gpiozero==2.0.1.post3 lgpio==0.2.2.0 >&2
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
board=${FIGURES_BOARD:-questbox-sim}
[[ -f Boards/$board.yaml ]] || { echo "figures: no board profile Boards/$board.yaml" >&2; exit 1; }
voice=${FIGURES_VOICE:-auto}
[[ $voice =~ ^(auto|on|off)$ ]] || { echo "figures: FIGURES_VOICE=$voice is not auto, on or off" >&2; exit 1; }
Tests/HIL/vm.sh -t 1800 -- Tests/HIL/guest/figures-run "$bin" "$venv" "$board" "$voice" ${FIGURES_SYSCALLS:+syscalls} > "$out"
python3 - "$out" "$(uname -m)" "$(nproc)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
q, z = r["questbox"], r["gpiozero"]
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))] if v else float("nan")
def row(name, a, b): print(f"| {name} | {a} | {b} |")
print(f"Measured in one VM run: Debian's 6.1 kernel under qemu TCG (2 vCPUs on a {sys.argv[3]}-core {sys.argv[2]} host), gpio-sim, snd-aloop.")
print(f"capture gaps (recorder overruns): {r['capture_gaps']}")
print(f"questbox: release build (Swift runtime linked statically), `questbox run` on the {r['board']} board"
      f"{', drawing every screen on ' + r['display'] + ' (its own thread)' if r['display'] else ''}, "
      f"{'speaking (' + str(r['voice']['clips']) + ' phrases kept in its voice cache)' if r['voice']['on'] else 'its voice off'}. "
      "gpiozero 2.0.1.post3 with LGPIOFactory (lgpio 0.2.2.0) on the same chip.\n")
print("| figure | questbox | gpiozero |")
print("|---|---|---|")
for key, name in (("timing", "timing error, 200 intervals of 0.5–30 s, from the traced edges: p50 / p99 / max (ms)"),
                  ("timing_write", "the same, from the time read before each press's write call: p50 / p99 / max (ms)")):
    row(name, f"{q[key + '_p50_ms']:.3f} / {q[key + '_p99_ms']:.3f} / {q[key + '_max_ms']:.3f}",
        f"{z[key + '_p50_ms']:.3f} / {z[key + '_p99_ms']:.3f} / {z[key + '_max_ms']:.3f}")
def traced(side):
    v, missing = side["led_traced"], side["led_traced_missing"]
    return f"{pct(v, 50):.3f} / {pct(v, 99):.3f} / {max(v, default=float('nan')):.3f} (n={len(v)}{f', {missing} unmatched' if missing else ''})"
row("press → LED line set, kernel to kernel (traced interrupt → gpio-sim set): p50 / p99 / max (ms)",
    f"{traced(q)}, in a quest", f"{traced(z)}, LED.toggle in when_pressed")
stages = q["led_stages"]
row(f"press → LED in the box, stage by stage (n={len(stages)}): interrupt → loop woken · woken → on a CPU · on a CPU → line set, p50 / p99 (ms)",
    " · ".join(f"{pct([s[i] for s in stages], 50):.2f} / {pct([s[i] for s in stages], 99):.2f}" for i in range(3)), "–")
row("idle CPU (ms per s, 30 s)", f"{q['idle_cpu_ms_per_s']:.1f}", f"{z['idle_cpu_ms_per_s']:.1f}")
loop = sum(v for k, v in q["threads_wakeups_per_s"].items() if k.startswith("questbox/"))
row("idle wake-ups per s (context switches, all threads)", f"{q['idle_wakeups_per_s']:.1f} (event loop {loop:.1f})", f"{z['idle_wakeups_per_s']:.1f}")
row("resident memory (MB)", f"{q['rss_mb']:.1f}", f"{z['rss_mb']:.1f}")
row("memory of its own: PSS / USS (MB)", f"{q['pss_mb']:.1f} / {q['uss_mb']:.1f}", f"{z['pss_mb']:.1f} / {z['uss_mb']:.1f}")
if "after_quest_memory_mb" in q:
    m = q["after_quest_memory_mb"]
    row("memory 3 s after the 30-task quest (its summary on show): RSS / PSS / USS, of them no file's (MB)",
        f"{m['rss']:.1f} / {m['pss']:.1f} / {m['uss']:.1f}, {m.get('anon', float('nan')):.1f}", "–")
if "idle_after_quest_memory_mb" in q:
    m = q["idle_after_quest_memory_mb"]
    back = q.get("pages_back_after_quest_kb")
    said = ("; the box's log: not handed back by then" if back == [] else
            f"; the box's log: handed back {back[0][0] / 1024:.1f} → {back[0][1] / 1024:.1f} MB" if back else "")
    row("memory idle after the quest (the summary gone, the quest's pages handed back; 100 s on): RSS / PSS / USS, of them no file's (MB)",
        f"{m['rss']:.1f} / {m['pss']:.1f} / {m['uss']:.1f}, {m.get('anon', float('nan')):.1f}{said}", "–")
if "voice_process_mb" in q:
    m = q["voice_process_mb"]
    row("its voice process (`questbox voice serve`): RSS / PSS / USS (MB)", f"{m['rss']:.1f} / {m['pss']:.1f} / {m['uss']:.1f}", "–")
a = q["audio_samples"]
skipped = q["audio_skipped"]
why = "; ".join(f"{skipped.count(k)} {k}" for k in sorted(set(skipped)))
row("press → first captured audio sample: p50 / p99 (ms)",
    f"{pct(a, 50):.1f} / {pct(a, 99):.1f} (n={len(a)}, lock-in and stop presses{'; left out: ' + why if why else ''})", "–")
v = r["voice"]
if v["on"]:
    def why(skipped): return "; left out: " + "; ".join(f"{skipped.count(k)} {k}" for k in sorted(set(skipped))) if skipped else ""
    o, g = v["offer_ms"], v["go_gap_ms"]
    row("press → first sample of a cached phrase (a next press: the task's name, no sound before it): p50 / p99 / max (ms)",
        f"{pct(o, 50):.1f} / {pct(o, 99):.1f} / {max(o, default=float('nan')):.1f} (n={len(o)}, each its kept clip sample for sample{why(v['offer_skipped'])})", "–")
    row("lock_in.wav's last frame → \"Go!\"'s first: p50 / max (ms)",
        f"{pct(g, 50):.1f} / {max(g, default=float('nan')):.1f} (n={len(g)}{why(v['go_skipped'])})", "–")
inj = r["injection"]
print(f"\ninjection: a press's pull write took p50 {inj['write_p50_ms']:.3f} / p99 {inj['write_p99_ms']:.3f} / max {inj['write_max_ms']:.3f} ms; "
      f"the box's kernel timestamp fell inside the write call for {inj['stamps_inside']} of {inj['presses']} presses, "
      f"p50 {inj['stamp_after_raised_p50_ms']:.3f} / p99 {inj['stamp_after_raised_p99_ms']:.3f} ms (min {inj['stamp_after_raised_min_ms']:.3f}) after the traced interrupt")
if "led_timeline" in q:
    from collections import Counter
    ways = q["led_timeline"]
    common, n = Counter(tuple(name for name, _ in w) for w in ways).most_common(1)[0] if ways else ((), 0)
    same = [w for w in ways if tuple(name for name, _ in w) == common]
    print(f"\nthe loop's way from getting a CPU to the line set, {n} of {len(ways)} presses alike (median ms after it got the CPU):")
    print("  " + " → ".join(f"{name} {pct([w[i][1] for w in same], 50):.3f}" for i, name in enumerate(common)))
    for w in ways[:6]:
        print("  one press: " + " → ".join(f"{name} {ms:.3f}" for name, ms in w))
if q.get("led_holders") and len(q["led_holders"]) == len(stages):
    # The slowest presses and who had the loop's CPU meanwhile (prio as the kernel counts it:
    # 120 normal, below 100 real-time, lower first; swapper: the vCPU was idle).
    print("\nthe slowest presses (stages ms) and who ran on the loop's CPU before it, or took it:")
    for s, h in sorted(zip(stages, q["led_holders"]), key=lambda x: -sum(x[0]))[:5]:
        print(f"  {sum(s):.2f} = {s[0]:.2f} + {s[1]:.2f} + {s[2]:.2f}: before {h['before']}"
              f"{'; preempted by ' + ', '.join(h['preempted_by']) if h['preempted_by'] else ''}")
print("per-thread idle wake-ups/s, questbox:", ", ".join(f"{k} {v:.1f}" for k, v in sorted(q["threads_wakeups_per_s"].items())))
print("per-thread idle wake-ups/s, gpiozero:", ", ".join(f"{k} {v:.1f}" for k, v in sorted(z["threads_wakeups_per_s"].items())))
PY
