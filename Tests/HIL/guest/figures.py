#!/usr/bin/env python3
"""Inside the VM: the side-by-side figures (#6). The questbox daemon (`questbox run`) and a
gpiozero 2.x program (zero.py) watch the same gpio-sim chip while this script presses
buttons for both at once: each press is two pull writes back to back, one on the box's
line and one on gpiozero's, each timed on CLOCK_MONOTONIC right before its write.
usage: figures.py SYSFS DAEMON_PID DAEMON_LOG ZERO_PID ZERO_OUT RESTART_CMD…"""
import json, os, random, re, signal, subprocess, sys, time
from box import Box, LOCK, STOP, UP, DOWN, now
from kernel_trace import RAISE, SETS, SYSCALLS, Presses, loop_holders, loop_timeline, box_edges, edges_raised, interval_errors, loop_stages, memory_kb, percentile, press_to_output, process_usage, raises, tracing

ZSTART, ZSTOP = 8, 9
sysfs, daemon_pid, daemon_log, zero_pid, zero_out = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
restart = sys.argv[6:]
box = Box(sysfs)
writer = Presses(sysfs, (LOCK, STOP, UP, DOWN, ZSTART, ZSTOP))
pull, write_calls = writer.pull, writer.calls


results = {}


# A figures run must end on a busy host too: each phase has a deadline, and one that passes
# ends the run with the phase's name at once (SIGALRM reaches this process at any priority).
# Only the presses run at real-time priority (they are stamped right before their write);
# the waiting, the trace reading and the arithmetic run at the normal priority, so a slow
# guest never has a real-time task holding its CPUs.
PHASE = {"name": "start", "since": time.monotonic()}


def phase(name, seconds):
    def overdue(*_):
        sys.exit(f"figures: the phase '{PHASE['name']}' did not end within {seconds} s "
                 f"(a busy host starves the guest): no figures from this run")
    PHASE.update(name=name, since=time.monotonic())
    signal.signal(signal.SIGALRM, overdue)
    signal.alarm(int(seconds))


def realtime(on):
    """This thread on SCHED_FIFO 10 (below the box's audio thread) for the presses, or back
    to normal."""
    try:
        if on:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        else:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except OSError:
        pass

# --- 1. idle: 30 s with nothing to show ---------------------------------------------------
realtime(False)
phase("idle", 33 + 60)
time.sleep(3)
before = {p: process_usage(p) for p in (daemon_pid, zero_pid)}
time.sleep(30)
after = {p: process_usage(p) for p in (daemon_pid, zero_pid)}
for name, pid in (("questbox", daemon_pid), ("gpiozero", zero_pid)):
    b, a = before[pid], after[pid]
    threads = {k: (a[2][k] - b[2].get(k, 0)) / 30 for k in a[2]}
    memory = memory_kb(pid)
    # Summed over the threads alive at the end: a thread that ended in the window (a voice
    # worker, #35) took its switches with it, and the process's total went down (-2.0/s).
    results[name] = {"idle_cpu_ms_per_s": (a[0] - b[0]) / 30 * 1000, "idle_wakeups_per_s": sum(threads.values()),
                     "threads_wakeups_per_s": threads, "rss_mb": memory["rss"] / 1024,
                     "pss_mb": memory["pss"] / 1024, "uss_mb": memory["uss"] / 1024}
# #35: the box's voice process (`questbox voice serve`, its child), when it speaks.
for pid in os.listdir("/proc"):
    try:
        if pid.isdigit() and open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1] == str(daemon_pid) \
                and b"voice\0serve" in open(f"/proc/{pid}/cmdline", "rb").read():
            memory = memory_kb(int(pid))
            results["questbox"]["voice_process_mb"] = {k: v / 1024 for k, v in memory.items()}
    except (FileNotFoundError, ProcessLookupError):
        continue

# --- 2. 200 intervals of 0.5–30 s, measured by both at once --------------------------------
rng = random.Random(2026)
starts = [2.0 + 0.4 * i for i in range(200)]
stops, taken = [], []
for s in starts:
    d = rng.uniform(0.5, 30.0)
    while any(abs(s + d - o) < 0.25 for o in taken) or any(abs(s + d - x) < 0.15 for x in starts):
        d = rng.uniform(0.5, 30.0)
    taken.append(s + d)
    stops.append(s + d)
events = []                                   # (due s from t0, kind, index)
for i, (s, e) in enumerate(zip(starts, stops)):
    events += [(s, "start", i), (s + 0.06, "start-up", i), (e, "stop", i), (e + 0.06, "stop-up", i)]
events.sort()
# No output sampler runs in this phase: its sysfs reads take the chip's lock the presses'
# writes need, and only the writes' own noise should stand between a press and its stamp.
injected = {"questbox": {}, "gpiozero": {}}
phase("200 intervals", int(max(stops)) + 60)
tracing(True, pid=os.getpid())
realtime(True)
t0 = now()
for due, kind, i in events:
    time.sleep(max(0.0, t0 + due - now()))
    down = not kind.endswith("-up")
    ours, theirs = (UP, ZSTART) if kind.startswith("start") else (DOWN, ZSTOP)
    a, b = pull(ours, down), pull(theirs, down)
    if down:
        injected["questbox"][(kind, i)] = a
        injected["gpiozero"][(kind, i)] = b
realtime(False)
time.sleep(1.0)
phase("reading the interval trace", 60)
raised = edges_raised(write_calls, raises(tracing(False)))
timing_calls = list(write_calls)

# --- 2b. gpiozero's press → LED: 200 more start presses. Measured in the kernel: from the
# interrupt gpio-sim raised for the press to gpiozero's set of its LED line (any process's
# sets are traced; gpiozero's threads are told by their ids).
led_calls = []
phase("gpiozero's LED", 200 * 0.2 + 60)
tracing(True, functions=(RAISE,) + SETS)
realtime(True)
for _ in range(200):
    pull(ZSTART, True)
    led_calls.append(write_calls[-1])
    time.sleep(0.06)
    pull(ZSTART, False)
    time.sleep(rng.uniform(0.08, 0.16))
realtime(False)
time.sleep(0.5)
phase("reading gpiozero's trace", 60)
zero_calls = tracing(False)
zero_tids = {int(tid) for tid in os.listdir(f"/proc/{zero_pid}/task")}

# What the box measured: the kernel edge timestamps its loop received (logged with --verbose).
edges = dict(zip(("up", "down"), box_edges(daemon_log)))
os.kill(zero_pid, signal.SIGTERM)
deadline = time.monotonic() + 20
while not os.path.exists(zero_out) or os.path.getsize(zero_out) == 0:
    if time.monotonic() > deadline:
        sys.exit("gpiozero did not write its presses")
    time.sleep(0.1)
time.sleep(0.2)
zero = json.load(open(zero_out))


assert len(zero["start"]) == 400, f"gpiozero saw {len(zero['start'])} start presses, 400 were made"
presses_traced = sum(1 for line, a, _ in timing_calls if (line, a) in raised)
assert presses_traced == len(timing_calls), f"{presses_traced} of {len(timing_calls)} presses have exactly one traced interrupt inside their write"
for name, (st, sp), lines in (("questbox", (edges["up"], edges["down"]), {"start": UP, "stop": DOWN}),
                              ("gpiozero", (zero["start"][:200], zero["stop"]), {"start": ZSTART, "stop": ZSTOP})):
    assert len(st) == 200 and len(sp) == 200, f"{name}: {len(st)} starts and {len(sp)} stops seen, 200 each pressed"
    for reference, key in ((raised, "timing"), (None, "timing_write")):
        errs = interval_errors(st, sp, injected[name], lines, reference)
        results[name].update({f"{key}_p50_ms": percentile(errs, 50), f"{key}_p99_ms": percentile(errs, 99), f"{key}_max_ms": max(errs)})
# The injection's own noise: how long a press's write call took; and for the box, where its
# kernel timestamp fell: inside the call (it cannot be earlier) and how long after the
# interrupt was raised.
ours = [(line, a, b) for line, a, b in timing_calls if line in (UP, DOWN)]
durations = [(b - a) * 1000 for _, a, b in ours]
stamps = sorted(edges["up"][:200] + edges["down"][:200])
inside = sum(1 for (_, a, b), ts in zip(ours, stamps) if a <= ts <= b)   # both in time order
after_raised = [(ts - raised[(line, a)]) * 1000 for (line, a, _), ts in zip(ours, stamps)]
# The trace prints whole µs: a stamp more than 1 µs before its traced interrupt would mean
# the reference, not the box, is wrong.
assert min(after_raised) >= -0.001, f"a box timestamp {min(after_raised):.3f} ms before its traced interrupt"
results["injection"] = {"write_p50_ms": percentile(durations, 50), "write_p99_ms": percentile(durations, 99),
                        "write_max_ms": max(durations), "stamps_inside": inside, "presses": len(ours),
                        "stamp_after_raised_p50_ms": percentile(after_raised, 50),
                        "stamp_after_raised_p99_ms": percentile(after_raised, 99),
                        "stamp_after_raised_min_ms": min(after_raised)}
traced = press_to_output(zero_calls, led_calls, zero_tids)
results["gpiozero"]["led_traced"] = [x for x in traced if x is not None]
results["gpiozero"]["led_traced_missing"] = traced.count(None)

# --- 3. the box in a quest: press → LED and press → first audio sample ----------------------
phase("restarting the box", 90)
subprocess.run(restart, check=True)           # re-import the routine for today, restart the box
new_pid = int(open(daemon_log + ".pid").read())
box.wait_for_quest()
time.sleep(0.5)
t = box.tap(LOCK)                            # start: estimating (white)
time.sleep(1.0)
presses, offers, led_calls = [], [], []


def tap_lock():
    """A lock press whose write call is kept (the LED's next colour is its answer)."""
    t = pull(LOCK, True)
    led_calls.append(write_calls[-1])
    time.sleep(0.08)
    pull(LOCK, False)
    return t


TASKS = 30                                   # 60 presses; the routine has as many tasks
# The quest's LED sets are traced as gpiozero's were: the box's main thread sets its lines.
# With the scheduler's events for the box's loop thread (its main thread: pid = tid), so
# each press's way splits into the kernel waking the loop, the loop getting a CPU, and the
# loop's own work up to the line set.
# With FIGURES_SYSCALLS=1 (figures-run's `syscalls`) the loop's system calls too (a diagnosis).
diagnosis = os.environ.get("FIGURES_SYSCALLS") == "1"
tracing(True, functions=(RAISE,) + SETS + (SYSCALLS if diagnosis else ()), events=("sched:sched_switch", "sched:sched_waking"),
        filters=(("events/sched/sched_waking/filter", f"pid == {new_pid}"),
                 ("events/sched/sched_switch/filter", f"prev_pid == {new_pid} || next_pid == {new_pid}")),
        only_of=(SYSCALLS, new_pid))
# Paced so that, with the voice on (#35), the reveal's words and the next task's name and
# guess end before the next press: each press is then made in silence, its first sample its own.
phase("the quest", int(TASKS * 13.2) + 60)
realtime(True)
for task in range(TASKS):
    t = tap_lock(); presses.append(t)       # lock-in: cyan, lock_in.wav (then "Go!")
    time.sleep(2.2)
    t = box.tap(STOP, hold=0.04); presses.append(t)   # stop.wav
    time.sleep(7.0)                                    # the reveal plays out (and its words)
    t = tap_lock(); offers.append(t)                   # next: white; no sound: the task and guess said
    time.sleep(3.8)
realtime(False)
quest_end = time.monotonic()
print(f"figures: the quest's last press at {time.strftime('%H:%M:%S', time.gmtime())} UTC", file=sys.stderr)
# #36: what the box holds once a quest has been played (its code mapped again, the world read
# again after the quest's writes), beside what it holds idle after start (section 1). Read
# before the trace: reading it takes a minute or more, and the pages go back a minute after
# the summary (both reads once fell after that).
time.sleep(3)
results["questbox"]["after_quest_memory_mb"] = {k: v / 1024 for k, v in memory_kb(new_pid).items()}
# A diagnosis's trace holds every process's system calls: reading it takes minutes here.
phase("reading the quest's trace", 900 if diagnosis else 60)
quest_calls = tracing(False)
traced = press_to_output(quest_calls, led_calls, {new_pid})
results["questbox"]["led_traced"] = [x for x in traced if x is not None]
results["questbox"]["led_traced_missing"] = traced.count(None)
results["questbox"]["led_stages"] = loop_stages(quest_calls, led_calls, new_pid)
results["questbox"]["led_holders"] = loop_holders(quest_calls, led_calls, new_pid)
if diagnosis:
    results["questbox"]["led_timeline"] = loop_timeline(quest_calls, led_calls, new_pid)
results["quest_pid"] = new_pid
# And once the summary has timed out (30 s) and the box, idle for a minute, has handed back
# the pages the quest mapped: what it then holds for the rest of the day (103 s after the
# last press, however long the trace took to read).
phase("the box idle after the quest", 160)
time.sleep(max(0.0, quest_end + 103 - time.monotonic()))
print(f"figures: the idle read at {time.strftime('%H:%M:%S', time.gmtime())} UTC, {time.monotonic() - quest_end:.0f} s after the last press", file=sys.stderr)
results["questbox"]["idle_after_quest_memory_mb"] = {k: v / 1024 for k, v in memory_kb(new_pid).items()}
# Whether the pages had gone back by that read: the box logs each hand-back with what it held
# before and after ("memory released", after=quest); none means the read saw the quest's pages.
released = [re.search(r"residentKB=\W*(\d+) -> (\d+)", line) for line in open(daemon_log, errors="replace")
            if "memory released" in line and re.search(r"after=\W*quest", line)]
results["questbox"]["pages_back_after_quest_kb"] = [[int(m[1]), int(m[2])] for m in released if m]
results["audio_presses"] = presses
results["offer_presses"] = offers[:-1]       # the last "next" ends the quest: the summary
signal.alarm(0)
print(json.dumps(results))
