#!/usr/bin/env python3
"""Inside the VM: plays the 3-task example quest on the questbox gpio-sim chip like a player
would, while recording the LED and buzzer lines. Prints JSON: the presses (CLOCK_MONOTONIC
s), the injected lock-in → stop intervals, and every output change.
usage: quest.py SYSFS_DIR"""
import json, os, sys, time
from box import Box, OutputRecorder, LOCK, STOP, DOWN, now

# (task duration s, "down" presses before lock-in). The first suggestion is 2:00; seven
# steps down make it 0:15, so task 2 is spot on (|15 − 3.1| ≤ 15 s) and tasks 1 and 3 are
# way off. Durations stay above GAME-4's 2 s guard.
PLAN = [(2.4, 0), (3.1, 7), (2.2, 0)]

box = Box(sys.argv[1])
box.wait_for_quest()
recorder = OutputRecorder(box)
recorder.start()
time.sleep(0.5)
presses = []


def press(label, line, hold=0.08):
    t = box.tap(line, hold)
    presses.append({"label": label, "t": t, "written": box.last_write_end, "release": t + hold})
    return t


press("start", LOCK)
time.sleep(1.0)
injected = []
# QUEST_BEFORE_LAST=PATH: the last task waits (at most 90 s) until PATH exists, so a scenario
# can let what it threw at the box during the first tasks end first (house: the flood).
before_last = os.environ.get("QUEST_BEFORE_LAST")
for i, (duration, downs) in enumerate(PLAN):
    if before_last and i == len(PLAN) - 1:
        deadline = time.monotonic() + 90
        while not os.path.exists(before_last) and time.monotonic() < deadline:
            time.sleep(0.1)
    for _ in range(downs):
        box.tap(DOWN)
        time.sleep(0.25)
    time.sleep(0.3)
    locked = press(f"lock{i}", LOCK)
    time.sleep(max(0.0, locked + duration - now()))
    # A short stop tap: the reveal starts on the release (a hold would abandon instead).
    stopped = press(f"stop{i}", STOP, hold=0.04)
    # The edges lie inside the write calls: the interval is known to within their spans.
    injected.append([presses[-1]["t"] - presses[-2]["written"], stopped - locked, presses[-1]["written"] - presses[-2]["t"]])
    time.sleep(6.0)                # the reveal's sound, lights and words (#35, with #48's pauses) run their course
    press(f"next{i}", LOCK)        # after the last task: the quest summary
    time.sleep(1.0)
time.sleep(2.5)                    # the summary's celebration
outputs = recorder.stop()
print(json.dumps({"presses": presses, "injected": injected, "outputs": outputs, "stalls": recorder.stalls}))
