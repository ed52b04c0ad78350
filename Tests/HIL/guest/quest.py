#!/usr/bin/env python3
"""Inside the VM: plays a 3-task quest on the questbox gpio-sim chip like a player would.

Presses are pulls written to sim_gpioK/pull (buttons are active-low: pull-down = pressed);
the lock-in to stop intervals are measured on CLOCK_MONOTONIC right before each write, the
clock the kernel stamps the edges with. Prints the injected intervals as JSON.
usage: quest.py SYSFS_DIR DURATION_S…"""
import json, sys, time

sysfs, durations = sys.argv[1], [float(d) for d in sys.argv[2:]]
LOCK, STOP, BLUE = 0, 1, 6

def pull(line, level):
    with open(f"{sysfs}/sim_gpio{line}/pull", "w") as f:
        f.write(level)

def value(line):
    with open(f"{sysfs}/sim_gpio{line}/value") as f:
        return f.read().strip() == "1"

def tap(line):
    """Presses for 80 ms; returns the press time (CLOCK_MONOTONIC, s)."""
    t = time.clock_gettime(time.CLOCK_MONOTONIC)
    pull(line, "pull-down")
    time.sleep(0.08)
    pull(line, "pull-up")
    return t

# The box is up once the "quest available" LED has lit.
deadline = time.monotonic() + 60
while not value(BLUE):
    if time.monotonic() > deadline:
        sys.exit("the box never showed a quest (LED_BLUE stayed off)")
    time.sleep(0.01)
tap(LOCK)                      # start the quest
time.sleep(1.0)
injected = []
for d in durations:
    locked = tap(LOCK)         # lock in the estimate: the task starts
    time.sleep(max(0.0, locked + d - time.clock_gettime(time.CLOCK_MONOTONIC)))
    stopped = tap(STOP)        # done
    injected.append(stopped - locked)
    time.sleep(2.5)            # the reveal
    tap(LOCK)                  # next task (after the last: the quest completes)
    time.sleep(1.0)
print(json.dumps(injected))
