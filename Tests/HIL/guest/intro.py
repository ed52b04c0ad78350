#!/usr/bin/env python3
"""Inside the VM, GAME-9 with kernel-stamped presses on the questbox gpio-sim chip: a fresh box
explains itself before her first quest, and only then.
  LOCK on the quest list shows "How it works 1/4"; LOCK goes on, UP goes back, DOWN goes on,
  STOP skips to the quest's first guess; each page is said by the voice's schedule (`speak`);
  the first task's time runs from the lock-in's kernel edge to the stop's, nothing of the
  intro's presses in it; after that quest the next LOCK goes straight to a guess.
Prints what it saw; exits 1 on a problem.
usage: intro.py SYSFS QUESTBOX DATA WATCH_OUT"""
import sys, time
from box import Box, LOCK, STOP, UP, DOWN, Problems, read_watch, start_watch, stored_history

sysfs, qb, data, watch_out = sys.argv[1:5]
box = Box(sysfs)
box.wait_for_quest()
watch = start_watch(qb, data, watch_out)
time.sleep(0.5)


def tap(line, hold=0.08, then=1.0):
    t = box.tap(line, hold)
    written = box.last_write_end
    time.sleep(then)
    return t, written


tap(LOCK)            # the quest list → How it works 1/4
tap(LOCK)            # 2/4
tap(UP)              # back to 1/4
tap(DOWN)            # 2/4
tap(LOCK)            # 3/4
tap(STOP)            # skips: the first guess
lock, lock_written = tap(LOCK, then=2.0)     # locked in
stop, stop_written = tap(STOP, hold=0.04)    # the reveal
tap(LOCK)            # the summary
tap(LOCK, then=1.5)  # the quest list
tap(LOCK)            # her second quest: straight to a guess
watch.terminate()
watch.wait()

messages = read_watch(watch_out)
screens = [m["screen"] for m in messages if m.get("screen")]
said = [m.get("words", "") for m in messages if m.get("event") == "speak"]
history = stored_history(qb, data)
problems = Problems()
check = problems.check

# Each screen once, in order (a screen sent again unchanged is one step).
steps = []
for s in screens:
    step = (s.get("kind"), s.get("page"))
    if not steps or steps[-1] != step:
        steps.append(step)
first_guess = steps.index(("estimating", None)) if ("estimating", None) in steps else len(steps)
intro = [step for step in steps[:first_guess] if step[0] != "idle"]
check(intro == [("intro", 1), ("intro", 2), ("intro", 1), ("intro", 2), ("intro", 3)],
      f"the intro's pages by LOCK, LOCK, UP, DOWN, LOCK, then STOP: {steps[:first_guess + 1]}")
after = steps[first_guess:]
check(("intro", 1) not in after, f"the intro came again after her first quest: {after}")
check(after[-1:] == [("estimating", None)], f"her second quest's LOCK did not go straight to a guess: {after}")
check(any(w.startswith("How it works. Before each task, guess how long") for w in said), f"page 1 was not said: {said[:6]}")
check(any(w.startswith("Do the task, then press stop") for w in said), f"page 3 was not said: {said[:8]}")
played = [e for e in history if e.get("routineDisplayName") == "Tidy Quest"]
check(len(played) == 1, f"one task played, the intro's presses locked nothing: {played}")
if played:
    took = played[0].get("actualSeconds", 0)
    low, high = stop - lock_written, stop_written - lock
    check(low - 0.005 <= took <= high + 0.005, f"the task took {took:.4f} s, its LOCK to STOP is {low:.4f}…{high:.4f} s")
    print(f"first task: {took:.4f} s stored, LOCK→STOP {low:.4f}…{high:.4f} s")
print(f"watch: {len(messages)} lines; screens {steps}")
for p in problems:
    print("PROBLEM:", p)
sys.exit(1 if problems else 0)
