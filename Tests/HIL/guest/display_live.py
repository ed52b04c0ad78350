#!/usr/bin/env python3
"""Inside the VM: the running box on its own OLED (#14). With `questbox run --board
questbox-sim-oled` up (an SSD1306 on i2c-stub, the kernel tracing every SMBus write on
CLOCK_MONOTONIC), this script plays a quest with gpio-sim presses and, once each screen has
settled, notes the time and the screen `questbox watch --json` reported, drawn as a PBM by
`questbox display render` (what the glass must show then). While the estimate is chosen it
presses up and down in turn, 20 times 0.4 s apart: each a digits-only change, timed from its
press. It also counts the drawing thread's context switches over 3 s of a static screen.
Prints JSON: the steps, the estimate presses, the screen thread's switches while static.
usage: display_live.py SYSFS QUESTBOX DATA OUT_DIR DAEMON_PID"""
import json, os, subprocess, sys, time
from box import Box, LOCK, STOP, UP, DOWN, now, start_watch

sysfs, qb, data, out, pid = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
box = Box(sysfs)

watch_out = os.path.join(data, "watch.jsonl")
watch = start_watch(qb, data, watch_out)
box.wait_for_quest()


def screen_thread_switches(pid):
    for tid in os.listdir(f"/proc/{pid}/task"):
        if open(f"/proc/{pid}/task/{tid}/comm").read().strip() == "questbox-screen":
            status = open(f"/proc/{pid}/task/{tid}/status").read()
            return sum(int(line.split()[1]) for line in status.splitlines() if "ctxt_switches:" in line)
    sys.exit("the box has no questbox-screen thread")


def last_screen():
    screen = None
    for line in open(watch_out):
        try:
            m = json.loads(line)
        except ValueError:
            continue
        screen = m.get("screen") or (m.get("box") or {}).get("screen") or screen
    return screen


steps = []


def tap(line, hold=0.08):
    """A press; the step before it ends here (its screen must be on the glass until now)."""
    if steps:
        steps[-1].setdefault("until", now())
    return box.tap(line, hold)


def settle(name, seconds=1.0):
    """Waits for the screen to settle, then notes the time and what the glass must show."""
    time.sleep(seconds)
    at = now()
    screen = last_screen()
    if screen is None:
        sys.exit(f"{name}: watch reported no screen")
    path = os.path.join(out, f"live-{name}.json")
    json.dump({"type": "event", "event": "screen", "screen": screen}, open(path, "w"))
    drawn = subprocess.run([qb, "display", "render", path, "--to", os.path.join(out, f"live-{name}.expected.pbm")],
                           capture_output=True, text=True)
    if drawn.returncode != 0:
        sys.exit(f"{name}: display render failed: {drawn.stderr}")
    steps.append({"name": name, "at": at, "kind": screen["kind"]})


settle("idle", 1.5)
# Three seconds of a static screen. At midnight the idle screen is a new day's and is drawn
# again (seen when a run straddled 00:00): a window the day changed in is measured again.
while True:
    day = time.localtime().tm_yday
    before = screen_thread_switches(pid)
    time.sleep(3.0)
    static_switches = screen_thread_switches(pid) - before
    if time.localtime().tm_yday == day:
        break
    time.sleep(2.0)

tap(LOCK)
settle("estimating")
estimate_presses = []
for i in range(20):
    estimate_presses.append(tap(UP if i % 2 == 0 else DOWN))
    time.sleep(0.4)
tap(UP)
settle("estimating-up")
locked = tap(LOCK)
settle("active")
time.sleep(max(0.0, locked + 3.0 - now()))
tap(STOP, hold=0.04)
settle("reveal", 2.0)
tap(LOCK)
settle("summary", 1.5)
steps[-1]["until"] = now()
watch.terminate()
watch.wait()
print(json.dumps({"steps": steps, "estimate_presses": estimate_presses, "static_switches": static_switches}))
