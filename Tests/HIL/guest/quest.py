#!/usr/bin/env python3
"""Inside the VM: plays a 3-task quest on the questbox gpio-sim chip like a player would and
prints the injected lock-in → stop intervals (CLOCK_MONOTONIC, s) as JSON.
usage: quest.py SYSFS_DIR DURATION_S…"""
import json, sys, time
from box import Box, LOCK, STOP

box = Box(sys.argv[1])
durations = [float(d) for d in sys.argv[2:]]
box.wait_for_quest()
box.tap(LOCK)                      # start the quest
time.sleep(1.0)
injected = []
for d in durations:
    locked = box.tap(LOCK)         # lock in the estimate: the task starts
    time.sleep(max(0.0, locked + d - time.clock_gettime(time.CLOCK_MONOTONIC)))
    stopped = box.tap(STOP)        # done
    injected.append(stopped - locked)
    time.sleep(2.5)                # the reveal
    box.tap(LOCK)                  # next task (after the last: the quest completes)
    time.sleep(1.0)
print(json.dumps(injected))
