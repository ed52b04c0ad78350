#!/usr/bin/env python3
"""Inside the VM: #34's side-by-side figures. One quest on the box, played in five stretches
of TASKS tasks: without the house (no link running), then with `questbox link` publishing to
Mosquitto beside it, then with the broker flooded, paused with SIGSTOP, and killed. For each
stretch: press → LED kernel to kernel (the traced interrupt to the box's LED line set) and
each task's stored duration against the traced interval between its two presses.
usage: house_figures.py SYSFS DAEMON_PID BROKER_PID LINK_CMD FLOOD_CMD HISTORY_CMD
(each *_CMD one shell command line). Prints one JSON object."""
import json, os, signal, subprocess, sys, time
from box import Box, LOCK, STOP
from kernel_trace import RAISE, SETS, Presses, edges_raised, loop_stages, press_to_output, raises, tracing

sysfs, daemon_pid, broker_pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
link_cmd, flood_cmd, history_cmd = sys.argv[4], sys.argv[5], sys.argv[6]
TASKS = 10
STRETCHES = ("no house", "link, broker up", "broker flooded", "broker paused (SIGSTOP)", "broker killed")
box = Box(sysfs)
writer = Presses(sysfs, (LOCK, STOP))
pull = writer.pull


def overdue(*_):
    sys.exit("house figures: the run did not end in time (a busy host starves the guest)")


signal.signal(signal.SIGALRM, overdue)
signal.alarm(len(STRETCHES) * (TASKS * 8 + 30) + 120)


def realtime(on):
    """The presses at SCHED_FIFO 10 (stamped right before their write), the waiting not."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO if on else os.SCHED_OTHER, os.sched_param(10 if on else 0))
    except OSError:
        pass


def tap(line, hold):
    """A press whose write call is kept; returns that call (line, before, after)."""
    pull(line, True)
    call = writer.calls[-1]
    time.sleep(hold)
    pull(line, False)
    return call


box.wait_for_quest()
time.sleep(0.5)
box.tap(LOCK)                                 # start: estimating
time.sleep(1.0)
# With the scheduler's events for the box's loop thread (its main thread), so each press's
# way splits into the kernel waking the loop, the loop getting a CPU, and the loop's own work.
tracing(True, functions=(RAISE,) + SETS, events=("sched:sched_switch", "sched:sched_waking"),
        filters=(("events/sched/sched_waking/filter", f"pid == {daemon_pid}"),
                 ("events/sched/sched_switch/filter", f"prev_pid == {daemon_pid} || next_pid == {daemon_pid}")))
helpers, plan = [], []                        # plan: (stretch, lock-in call, stop call, next call)
for stretch, name in enumerate(STRETCHES):
    if name == "link, broker up":
        helpers.append(subprocess.Popen(["sh", "-c", link_cmd]))
        time.sleep(4.0)                       # connected, discovery and the first state published
    elif name == "broker flooded":
        helpers.append(subprocess.Popen(["sh", "-c", flood_cmd], start_new_session=True))
        time.sleep(1.0)
    elif name == "broker paused (SIGSTOP)":
        os.killpg(helpers[-1].pid, signal.SIGKILL)
        os.kill(broker_pid, signal.SIGSTOP)
        time.sleep(0.5)
    elif name == "broker killed":
        os.kill(broker_pid, signal.SIGKILL)   # a stopped process dies on SIGKILL too
        time.sleep(0.5)
    realtime(True)
    for task in range(TASKS):
        lock = tap(LOCK, 0.08)                # lock-in: cyan
        time.sleep(2.4 + 0.1 * task)            # above GAME-4's 2 s guard
        stop = tap(STOP, 0.04)                # a short tap: the reveal on its release
        time.sleep(2.3)                       # the reveal plays out
        after = tap(LOCK, 0.08)               # next task: white
        time.sleep(1.8)
        plan.append((stretch, lock, stop, after))
    realtime(False)
calls = tracing(False)
link = helpers[0]
link.send_signal(signal.SIGTERM)
try:
    link.wait(timeout=10)
except subprocess.TimeoutExpired:
    link.kill()

raised = edges_raised(writer.calls, raises(calls))
history = json.loads(subprocess.run(["sh", "-c", history_cmd], check=True, capture_output=True, text=True).stdout)
if len(history) < len(plan):
    sys.exit(f"house figures: {len(history)} durations stored, {len(plan)} tasks played")
history = history[-len(plan):]
result = {"tasks_per_stretch": TASKS, "stretches": []}
for stretch, name in enumerate(STRETCHES):
    rows = [(p, h) for p, h in zip(plan, history) if p[0] == stretch]
    presses = [call for p, _ in rows for call in (p[1], p[3])]
    led = press_to_output(calls, presses, {daemon_pid})
    errors, unmatched = [], 0
    for (_, lock, stop, _), entry in rows:
        a, b = raised.get((lock[0], lock[1])), raised.get((stop[0], stop[1]))
        if a is None or b is None:
            unmatched += 1
            continue
        errors.append(abs(entry["actualSeconds"] - (b - a)) * 1000)
    result["stretches"].append({"name": name, "led_ms": [x for x in led if x is not None],
                                "led_stages": loop_stages(calls, presses, daemon_pid),
                                "led_missing": led.count(None), "duration_error_ms": errors,
                                "durations_unmatched": unmatched})
signal.alarm(0)
print(json.dumps(result))
