#!/usr/bin/env python3
"""Inside the VM: the side-by-side figures (#6). The questbox daemon (`questbox run`) and a
gpiozero 2.x program (zero.py) watch the same gpio-sim chip while this script presses
buttons for both at once: each press is two pull writes back to back, one on the box's
line and one on gpiozero's, each timed on CLOCK_MONOTONIC right before its write.
usage: figures.py SYSFS DAEMON_PID DAEMON_LOG ZERO_PID ZERO_OUT RESTART_CMD…"""
import bisect, json, os, random, re, signal, subprocess, sys, time
from box import Box, LOCK, STOP, UP, DOWN, now

ZSTART, ZSTOP = 8, 9
sysfs, daemon_pid, daemon_log, zero_pid, zero_out = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
restart = sys.argv[6:]
box = Box(sysfs)
fds = {line: os.open(f"{sysfs}/sim_gpio{line}/pull", os.O_WRONLY) for line in (LOCK, STOP, UP, DOWN, ZSTART, ZSTOP)}


write_calls = []                              # (line, before, after) of each press's write


def pull(line, pressed):
    t = now()
    os.pwrite(fds[line], b"pull-down" if pressed else b"pull-up", 0)
    if pressed:
        write_calls.append((line, t, now()))
    return t


# The reference for when an edge happened: the moment gpio-sim raised the line's interrupt
# (its irq_sim_set_irqchip_state), recorded by the kernel's function tracer on
# CLOCK_MONOTONIC. A press's write call is slow and jittery under emulation; the edge is one
# instant inside it, and that instant, not the time read before the call, is what the box
# and gpiozero both try to measure.
TRACE = "/sys/kernel/tracing"


RAISE, SETS = "irq_sim_set_irqchip_state", ("gpio_sim_set", "gpio_sim_set_multiple")
# A function call (`name <-caller`) or an event (`name: payload`).
TRACED = re.compile(r"^\s*.*?-(\d+)\s+\[\d+\].*?\s(\d+\.\d+): (\w+)(?:: (.*))?", re.M)


def tracing(on, functions=(RAISE,), pid=None, events=(), filters=()):
    """Starts tracing calls of `functions` (only by `pid`, if given) and `events` (with
    their `filters`), or stops and returns them as (tid, CLOCK_MONOTONIC s, function or
    event, event payload or "")."""
    if on:
        if not os.path.exists(f"{TRACE}/trace_clock"):
            subprocess.run(["mount", "-t", "tracefs", "nodev", TRACE], check=True)
        for name, value in (("tracing_on", "0"), ("current_tracer", "nop"), ("trace_clock", "mono"),
                            ("buffer_size_kb", "16384"), ("set_ftrace_filter", " ".join(functions)),
                            ("set_ftrace_pid", str(pid) if pid else ""), ("set_event", " ".join(events)), *filters,
                            ("current_tracer", "function"), ("trace", ""),
                            ("tracing_on", "1")):
            with open(f"{TRACE}/{name}", "w") as f:
                f.write(value)
        return None
    with open(f"{TRACE}/tracing_on", "w") as f:
        f.write("0")
    with open(f"{TRACE}/trace") as f:
        calls = [(int(m.group(1)), float(m.group(2)), m.group(3), m.group(4) or "") for m in TRACED.finditer(f.read())]
    with open(f"{TRACE}/current_tracer", "w") as f:
        f.write("nop")
    return calls


def loop_stages(calls, presses, loop, within=0.1):
    """Each press's way to its LED in three stages (ms), from a trace with the loop thread's
    sched_waking and sched_switch events: interrupt → loop woken, woken → loop on a CPU,
    on a CPU → its line set. A press that found the loop already running (woken by
    something else) counts 0 for the first two."""
    events = sorted((t, tid, name, payload) for tid, t, name, payload in calls)
    times = [e[0] for e in events]
    edges = edges_raised(presses, raises(calls))
    stages = []
    for line, a, _ in presses:
        edge = edges.get((line, a))
        if edge is None:
            continue
        woken = running = None
        for t, tid, name, payload in events[bisect.bisect_left(times, edge):]:
            if t - edge > within:
                break
            if name == "sched_waking" and woken is None:
                woken = t
            elif name == "sched_switch" and f"next_pid={loop} " in payload + " " and running is None:
                running = t
                woken = woken if woken is not None else t
            elif name in SETS and tid == loop:
                woken = woken if woken is not None else edge       # it was running already
                running = running if running is not None else woken
                stages.append(((woken - edge) * 1000, (running - woken) * 1000, (t - running) * 1000))
                break
    return stages


def raises(calls):
    return [t for _, t, function, _ in calls if function == RAISE]


def press_to_output(calls, presses, tids, within=0.1):
    """Kernel to kernel: for each press's write call (line, before, after), from the
    interrupt gpio-sim raised inside it to the first output line set by one of `tids`
    (ms; None when either is missing)."""
    edges = edges_raised(presses, raises(calls))
    sets = sorted(t for tid, t, function, _ in calls if function in SETS and tid in tids)
    out = []
    for line, a, _ in presses:
        edge = edges.get((line, a))
        k = bisect.bisect_left(sets, edge) if edge is not None else len(sets)
        out.append((sets[k] - edge) * 1000 if k < len(sets) and sets[k] - edge <= within else None)
    return out


def edges_raised(calls, raised):
    """{(line, before): the interrupt raised inside that write call}; a call with none or
    several inside it has no entry."""
    raised, out = sorted(raised), {}
    for line, a, b in calls:
        # The trace prints whole microseconds: a call's bounds are widened by one.
        inside = raised[bisect.bisect_left(raised, a - 1e-6):bisect.bisect_right(raised, b + 1e-6)]
        if len(inside) == 1:
            out[(line, a)] = inside[0]
    return out


def percentile(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))] if v else float("nan")


def process_usage(pid):
    """(CPU seconds, context switches summed over threads, {thread: switches}, RSS kB)."""
    ticks = os.sysconf("SC_CLK_TCK")
    stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    cpu = (int(stat[11]) + int(stat[12])) / ticks
    switches, per_thread = 0, {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            status = open(f"/proc/{pid}/task/{tid}/status").read()
            name = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
        except FileNotFoundError:
            continue
        n = sum(int(m) for m in re.findall(r"(?:non)?voluntary_ctxt_switches:\s+(\d+)", status))
        switches += n
        per_thread[f"{name}/{tid}"] = n
    rss = int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{pid}/status").read()).group(1))
    return cpu, switches, per_thread, rss


results = {}

# --- 1. idle: 30 s with nothing to show ---------------------------------------------------
time.sleep(3)
before = {p: process_usage(p) for p in (daemon_pid, zero_pid)}
time.sleep(30)
after = {p: process_usage(p) for p in (daemon_pid, zero_pid)}
for name, pid in (("questbox", daemon_pid), ("gpiozero", zero_pid)):
    b, a = before[pid], after[pid]
    threads = {k: (a[2][k] - b[2].get(k, 0)) / 30 for k in a[2]}
    results[name] = {"idle_cpu_ms_per_s": (a[0] - b[0]) / 30 * 1000, "idle_wakeups_per_s": (a[1] - b[1]) / 30,
                     "threads_wakeups_per_s": threads, "rss_mb": a[3] / 1024}

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
tracing(True, pid=os.getpid())
t0 = now()
for due, kind, i in events:
    time.sleep(max(0.0, t0 + due - now()))
    down = not kind.endswith("-up")
    ours, theirs = (UP, ZSTART) if kind.startswith("start") else (DOWN, ZSTOP)
    a, b = pull(ours, down), pull(theirs, down)
    if down:
        injected["questbox"][(kind, i)] = a
        injected["gpiozero"][(kind, i)] = b
time.sleep(1.0)
raised = edges_raised(write_calls, raises(tracing(False)))
timing_calls = list(write_calls)

# --- 2b. gpiozero's press → LED: 200 more start presses. Measured in the kernel: from the
# interrupt gpio-sim raised for the press to gpiozero's set of its LED line (any process's
# sets are traced; gpiozero's threads are told by their ids).
led_calls = []
tracing(True, functions=(RAISE,) + SETS)
for _ in range(200):
    pull(ZSTART, True)
    led_calls.append(write_calls[-1])
    time.sleep(0.06)
    pull(ZSTART, False)
    time.sleep(rng.uniform(0.08, 0.16))
time.sleep(0.5)
zero_calls = tracing(False)
zero_tids = {int(tid) for tid in os.listdir(f"/proc/{zero_pid}/task")}

# What the box measured: the kernel edge timestamps its loop received (logged with --verbose).
edges = {"up": [], "down": []}
for line in open(daemon_log):
    m = re.search(r"button=(up|down) ns=(\d+) pressed=true .*\bedge\b", line)
    if m:
        edges[m.group(1)].append(int(m.group(2)) / 1e9)
os.kill(zero_pid, signal.SIGTERM)
deadline = time.monotonic() + 20
while not os.path.exists(zero_out) or os.path.getsize(zero_out) == 0:
    if time.monotonic() > deadline:
        sys.exit("gpiozero did not write its presses")
    time.sleep(0.1)
time.sleep(0.2)
zero = json.load(open(zero_out))


def interval_errors(start_times, stop_times, inj, lines, reference):
    """|measured − injected| per interval in ms; the injected interval runs between the two
    presses' edges as `reference` dates them ("raised": the traced interrupt; "before": the
    time read before the write call)."""
    assert len(start_times) == 200 and len(stop_times) == 200, f"{len(start_times)} starts and {len(stop_times)} stops seen, 200 each pressed"
    order = sorted(range(200), key=lambda i: inj[("stop", i)])        # stops arrive in time order
    stop_of = {i: stop_times[rank] for rank, i in enumerate(order)}
    at = (lambda kind, i: inj[(kind, i)]) if reference == "before" else \
        (lambda kind, i: raised[(lines[kind], inj[(kind, i)])])
    return [abs((stop_of[i] - start_times[i]) - (at("stop", i) - at("start", i))) * 1000 for i in range(200)]


assert len(zero["start"]) == 400, f"gpiozero saw {len(zero['start'])} start presses, 400 were made"
presses_traced = sum(1 for line, a, _ in timing_calls if (line, a) in raised)
assert presses_traced == len(timing_calls), f"{presses_traced} of {len(timing_calls)} presses have exactly one traced interrupt inside their write"
for name, (st, sp), lines in (("questbox", (edges["up"], edges["down"]), {"start": UP, "stop": DOWN}),
                              ("gpiozero", (zero["start"][:200], zero["stop"]), {"start": ZSTART, "stop": ZSTOP})):
    for reference, key in (("raised", "timing"), ("before", "timing_write")):
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
subprocess.run(restart, check=True)           # re-import the routine for today, restart the box
new_pid = int(open(daemon_log + ".pid").read())
box.wait_for_quest()
time.sleep(0.5)
t = box.tap(LOCK)                            # start: estimating (white)
time.sleep(1.0)
presses, led_calls = [], []


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
tracing(True, functions=(RAISE,) + SETS, events=("sched:sched_switch", "sched:sched_waking"),
        filters=(("events/sched/sched_waking/filter", f"pid == {new_pid}"),
                 ("events/sched/sched_switch/filter", f"prev_pid == {new_pid} || next_pid == {new_pid}")))
for task in range(TASKS):
    t = tap_lock(); presses.append(t)       # lock-in: cyan, lock_in.wav
    time.sleep(2.2)
    t = box.tap(STOP, hold=0.04); presses.append(t)   # stop.wav
    time.sleep(2.3)                                    # the reveal plays out
    t = tap_lock()                                     # next: white (after the last: summary)
    time.sleep(1.8)
quest_calls = tracing(False)
traced = press_to_output(quest_calls, led_calls, {new_pid})
results["questbox"]["led_traced"] = [x for x in traced if x is not None]
results["questbox"]["led_traced_missing"] = traced.count(None)
results["questbox"]["led_stages"] = loop_stages(quest_calls, led_calls, new_pid)
results["quest_pid"] = new_pid
results["audio_presses"] = presses
print(json.dumps(results))
