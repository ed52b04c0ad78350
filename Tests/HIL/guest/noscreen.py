#!/usr/bin/env python3
"""Inside the VM: a box with no screen (SPEC §2), read only from its LED and buzzer lines.
Two quests today, read-back on. The selected quest is counted in blue blinks; up/down pulse
the new number on the buzzer; estimate steps never buzz; the locked estimate (1:30) is read
back as 1 long and 2 short pulses; the reveal is told by colour and pulses.
usage: noscreen.py SYSFS"""
import sys, time
from box import Box, OutputRecorder, Outputs, LOCK, STOP, UP, DOWN, now

box = Box(sys.argv[1])
box.wait_for_quest()
recorder = OutputRecorder(box)
recorder.start()
problems = []


def check(ok, message):
    if not ok:
        problems.append(message)
    return ok


def pulses(index, a, b):
    """(start, length s) of each pulse of recorded line `index` (2: blue, 3: the buzzer)
    that switched on within [a, b)."""
    return Outputs(recorder.changes).pulses(index, a, b)


def blink_groups(a, b):
    """The blue blinks in [a, b) grouped into counts (a pause over 1 s ends a count); a
    count still running at b is left out."""
    groups, prev = [], None
    for start, _ in pulses(2, a, b):
        if prev is None or start - prev > 1.0:
            groups.append([])
        groups[-1].append(start)
        prev = start
    if groups and b - groups[-1][-1] < 1.2:
        groups.pop()
    return [len(g) for g in groups]


def tap(line, settle):
    t = box.tap(line)
    time.sleep(settle)
    return t


time.sleep(0.2)
t0 = now()
time.sleep(6.6)
first = blink_groups(t0, now())
check(first and all(n == 1 for n in first), f"quest 1 selected: blue counts {first}, expected 1s")

down = tap(DOWN, 6.6)
counts, buzz = blink_groups(down, now()), pulses(3, down, down + 1.2)
check(counts and all(n == 2 for n in counts), f"after down (quest 2): blue counts {counts}, expected 2s")
check(len(buzz) == 2, f"after down: {len(buzz)} buzzer pulses, expected 2 (quest 2)")

up = tap(UP, 6.6)
counts, buzz = blink_groups(up, now()), pulses(3, up, up + 1.2)
# The old count's blink may still be lit at the press: the new count's first blink then
# shows no edge; the next one does.
check(counts and all(n == 1 for n in counts), f"after up (quest 1): blue counts {counts}, expected 1s")
check(len(buzz) == 1, f"after up: {len(buzz)} buzzer pulses, expected 1 (quest 1)")

start = tap(LOCK, 0.6)                     # estimating: 2:00 to start with
steps = [tap(DOWN, 0.4), tap(DOWN, 0.4)]   # 1:45, 1:30 (15 s steps below 2:00): a tick each on the speaker, no buzz
check(not pulses(3, start, now()), "the buzzer sounded while choosing the estimate")
lock = tap(LOCK, 2.6)
readback = pulses(3, lock, lock + 2.5)
kinds = ["long" if length > 0.24 else "short" for _, length in readback]
check(kinds == ["long", "short", "short"],
      f"read-back of 1:30: {[f'{length * 1000:.0f} ms' for _, length in readback]}, expected 1 long and 2 short pulses")
stop = box.tap(STOP, hold=0.04)
time.sleep(2.0)
magenta = next((t - stop for t, s in recorder.changes if t >= stop and s[:3] == (1, 0, 1)), None)
check(magenta is not None and magenta < 0.5, f"way off: the light turned magenta {magenta} s after the stop")
after_stop = pulses(3, stop, stop + 1.5)
check(len(after_stop) == 3, f"after the stop: {len(after_stop)} buzzer pulses, expected the stop's tap and way off's 2")
recorder.stop()

print(f"counts: quest 1 {first}; read-back {[f'{length * 1000:.0f}' for _, length in readback]} ms; "
      f"reveal magenta after {'-' if magenta is None else f'{magenta * 1000:.0f}'} ms, {len(after_stop)} buzzer pulses")
for p in problems:
    print("problem:", p)
sys.exit(1 if problems else 0)
