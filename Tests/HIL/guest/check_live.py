#!/usr/bin/env python3
"""Inside the VM: checks the `live` scenario from what live.py saw, what `questbox watch
--json` printed, and the loopback capture. Exits 2 when the only problem is that the
recorder lost frames where silence had to be shown (the host stalled the recorder: nothing
said about the box), 1 on any other problem.
usage: check_live.py LIVE.json WATCH.jsonl CAPTURE.raw CAPTURE.times"""
import json, sys
from audio import Capture
from box import Outputs

live = json.load(open(sys.argv[1]))
capture = Capture(sys.argv[3], sys.argv[4])
presses = {p["label"]: p["t"] for p in live["presses"]}
outputs = Outputs(live["outputs"])
problems, inconclusive = [], []


def check(ok, message):
    if not ok:
        problems.append(message)
    return ok


# --- an import reaches the running box ---------------------------------------------------
print(f"import → quest light: {live['light_after_import'] * 1000:.0f} ms after its end "
      f"(the import took {live['import_seconds'] * 1000:.0f} ms, the first blink {live['lit_after_import_began'] * 1000:.0f} ms after it began)")
check(live["light_after_import"] <= 1.0, f"the quest light came {live['light_after_import']:.2f} s after the import (limit 1 s)")

# --- watch --json: every screen in order, nothing that tells the time while active --------
messages = []
for n, line in enumerate(open(sys.argv[2]), 1):
    try:
        messages.append((line, json.loads(line)))
    except ValueError:
        check(False, f"watch line {n} is not JSON: {line[:80]!r}")
check(messages and messages[0][1].get("type") == "hello", "watch did not start with the box's hello")
screens = []
for _, m in messages:
    kind = (m.get("screen") or {}).get("kind")
    if kind and (not screens or screens[-1] != kind):
        screens.append(kind)
quest = ["estimating", "active", "reveal", "summary", "idle"]
want = ["idle"] + quest + quest
check(screens == want, f"watch saw the screens {screens}, expected {want}")
presses_seen = sum(1 for _, m in messages if m.get("event") == "press" and m.get("pressed"))
check(presses_seen == len(presses), f"watch saw {presses_seen} presses, the player made {len(presses)}")
active = False
for line, m in messages:
    kind = (m.get("screen") or {}).get("kind")
    if kind == "active":
        active = True
        keys = set(m["screen"])
        check(keys == {"kind", "questName", "taskName", "taskNumber", "taskCount", "estimateSeconds"},
              f"the active screen carries {sorted(keys)}")
    elif kind == "reveal":
        active = False
    if active:
        for word in ("Nanos", "elapsed", "actualSeconds", "differenceSeconds", "accuracy"):
            check(word not in line, f"while active, watch saw {word!r}: {line.strip()[:120]}")
print(f"watch: {len(messages)} lines, screens {screens}, {presses_seen} presses")

# --- the reveal is heard, then muted without a restart ------------------------------------
loud = presses["loud-stop"]
check(capture.first_sound_after(loud, 1.0) is not None, "nothing was heard within 1 s of the first stop press")
muted = presses["muted-stop"]
span = 2.5
if capture.gaps_within(muted - 0.2, span + 0.2):
    inconclusive.append("the recorder lost frames after the muted stop press")
elif not capture.silent_before(muted + span, span + 0.2):
    first = capture.first_sound_after(muted - 0.2, span + 0.2)
    check(False, f"muted, yet sound {capture.time_of(first) - muted:+.3f} s from the stop press")


for tag in ("loud", "muted"):
    d = outputs.first_color_after(presses[f"{tag}-stop"], "magenta", 0.5)  # way off
    check(d is not None, f"{tag}: the reveal's light (magenta) did not show within 0.5 s of the stop")
print("reveal lights (magenta) after the stop, s:", [outputs.first_color_after(presses[f"{t}-stop"], "magenta", 0.5) for t in ("loud", "muted")])

for p in problems:
    print("problem:", p)
if not problems and inconclusive:
    print("inconclusive:", "; ".join(inconclusive))
    sys.exit(2)
sys.exit(1 if problems else 0)
