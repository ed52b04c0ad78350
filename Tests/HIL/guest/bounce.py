#!/usr/bin/env python3
"""Inside the VM: scenario 2 (#6). 200 bouncy up/down presses while the first task's
estimate is chosen, then a bouncy lock-in and stop. Prints JSON: the estimate after each
press as §2's steps make it, the injected lock-in → stop interval, and how long each of the
400 up/down bursts took to write (a host stall can stretch one).
usage: bounce.py SYSFS_DIR"""
import json, random, sys, time
from box import Box, LOCK, STOP, UP, DOWN, now

MIN, MAX = 15, 3 * 60 * 60


def step(s):
    return 15 if s < 120 else 30 if s < 600 else 60 if s < 1800 else 300


def up(s):
    return min(MAX, (s // step(s) + 1) * step(s))


def down(s):
    return max(MIN, ((s - 1) // step(s - 1)) * step(s - 1))


rng = random.Random(6)
box = Box(sys.argv[1])
box.wait_for_quest()
box.tap(LOCK)                                  # start the quest: estimating, 2:00
time.sleep(1.0)
estimate, trajectory, spans, edge_counts = 120, [120], [], []
for _ in range(200):
    # A random walk that never meets a limit (there a press rightly changes nothing).
    going_up = rng.random() < 0.5 if MIN < estimate < MAX else estimate == MIN
    _, press_spans, counts = box.bouncy_press(UP if going_up else DOWN, rng)
    spans += press_spans
    edge_counts += counts
    estimate = up(estimate) if going_up else down(estimate)
    trajectory.append(estimate)
    time.sleep(0.12)
time.sleep(0.5)
locked, _, _ = box.bouncy_press(LOCK, rng)
time.sleep(max(0.0, locked + 2.5 - now()))
stopped, _, _ = box.bouncy_press(STOP, rng)
time.sleep(1.0)
print(json.dumps({"trajectory": trajectory, "injected": stopped - locked, "burst_spans": spans,
                  "burst_edges": [min(edge_counts), max(edge_counts)]}))
