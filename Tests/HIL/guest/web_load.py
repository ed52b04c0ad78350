#!/usr/bin/env python3
"""Inside the VM: is the box unaffected by its web app under load (#13)? The box runs on a
store with five years of play, questbox-web beside it on the same store (at nice 5, as its
unit), and wrk hammers the web's /stats from inside the guest in every other round. The
rounds alternate (quiet, loaded, quiet, loaded), so a drift of the machine counts on both
sides alike:
  - timing: intervals pressed on BTN_UP / BTN_DOWN while the box idles, each measured by the
    box (its logged kernel edge stamps) against the traced interrupts gpio-sim raised;
  - press → LED: lock presses in a quest, from the traced interrupt to the box's LED line set.
usage: web_load.py SYSFS BOX_LOG STATS_URL RESTART_CMD…   (prints one JSON object)"""
import json, os, random, re, signal, subprocess, sys, time
from box import Box, LOCK, STOP, UP, DOWN, now
from kernel_trace import RAISE, SETS, Presses, box_edges, edges_raised, interval_errors, percentile, press_to_output, process_usage, raises, tracing

sysfs, box_log, stats_url = sys.argv[1], sys.argv[2], sys.argv[3]
restart = sys.argv[4:]
box = Box(sysfs)
writer = Presses(sysfs, (LOCK, STOP, UP, DOWN))
CONDITIONS = ("quiet", "wrk")
ROUNDS = CONDITIONS * 2
INTERVALS = 50                      # per timing round: 100 per condition
TASKS = 7                           # per quest round: 14 lock-in and 14 next presses per condition
results = {c: {"timing": [], "led": [], "led_missing": 0} for c in CONDITIONS}
results["wrk_rounds"] = []


class Load:
    """wrk on /stats at 8 connections (2 threads) for the length of a `with` block; the
    summary it prints on SIGINT is kept."""

    def __init__(self, on):
        self.on = on

    def __enter__(self):
        if self.on:
            # Back to normal priority: this script runs at FIFO 10, above the box, and the
            # load must not.
            self.wrk = subprocess.Popen(["chrt", "-o", "0", "wrk", "-t2", "-c8", "-d3600s", "--latency", stats_url],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            time.sleep(2.0)                       # connected and at full pace
            if self.wrk.poll() is not None:
                sys.exit("wrk ended at once: " + self.wrk.stdout.read())
        return self

    def __exit__(self, *_):
        if not self.on:
            return
        self.wrk.send_signal(signal.SIGINT)
        out, _ = self.wrk.communicate(timeout=30)
        rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
        p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\b", out, re.M)
        errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        if not rate or not p99:
            sys.exit("wrk printed no summary: " + out)
        scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
        results["wrk_rounds"].append({"requests_per_s": float(rate.group(1)), "p99_ms": float(p99.group(1)) * scale,
                                      "non_2xx": int(errors.group(1)) if errors else 0})


def timing_round(rng, condition):
    """INTERVALS intervals of 0.5–8 s, overlapping (a start every 0.4 s): |box − kernel| (ms)."""
    starts = [1.0 + 0.4 * i for i in range(INTERVALS)]
    stops = []
    for s in starts:
        d = rng.uniform(0.5, 8.0)
        while any(abs(s + d - o) < 0.25 for o in stops) or any(abs(s + d - x) < 0.15 for x in starts):
            d = rng.uniform(0.5, 8.0)
        stops.append(s + d)
    events = sorted([(s, "start", i) for i, s in enumerate(starts)] + [(s + 0.06, "start-up", i) for i, s in enumerate(starts)]
                    + [(e, "stop", i) for i, e in enumerate(stops)] + [(e + 0.06, "stop-up", i) for i, e in enumerate(stops)])
    injected = {}
    first_call = len(writer.calls)
    tracing(True, pid=os.getpid())
    t0 = now()
    for due, kind, i in events:
        time.sleep(max(0.0, t0 + due - now()))
        down = not kind.endswith("-up")
        t = writer.pull(UP if kind.startswith("start") else DOWN, down)
        if down:
            injected[(kind, i)] = t
    time.sleep(1.0)
    calls = writer.calls[first_call:]
    raised = edges_raised(calls, raises(tracing(False)))
    assert all((line, a) in raised for line, a, _ in calls), "a press without exactly one traced interrupt inside its write"
    measured_starts, measured_stops = box_edges(box_log, t0, now())
    if len(measured_starts) != INTERVALS or len(measured_stops) != INTERVALS:
        # Which presses the box did not log, by when they were made (s after t0).
        logged = sorted(measured_starts + measured_stops)
        missing = [round(raised[(line, a)] - t0, 2) for line, a, _ in calls
                   if not any(abs(x - raised[(line, a)]) < 0.005 for x in logged)]
        sys.exit(f"{condition} round: the box logged {len(measured_starts)} starts and {len(measured_stops)} stops of "
                 f"{INTERVALS} each; the presses it missed came at {missing} s")
    return interval_errors(measured_starts, measured_stops, injected, {"start": UP, "stop": DOWN}, raised)


def settled(pid, seconds=2.0, within=60):
    """Waits until the box has used under 5 % of a CPU for `seconds` (its start-up work done)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        before = process_usage(pid)[0]
        time.sleep(seconds)
        if process_usage(pid)[0] - before < 0.05 * seconds:
            return
    sys.exit(f"the box (pid {pid}) stayed busy for {within} s")


def quest_round(box_pid):
    """TASKS tasks of the quest: lock-in, stop, next. Press → LED (ms) of the lock presses."""
    led_calls = []

    def tap_lock():
        writer.pull(LOCK, True)
        led_calls.append(writer.calls[-1])
        time.sleep(0.08)
        writer.pull(LOCK, False)

    tracing(True, functions=(RAISE,) + SETS)
    for _ in range(TASKS):
        tap_lock()                      # lock-in: cyan
        time.sleep(2.2)
        box.tap(STOP, hold=0.04)
        time.sleep(2.3)                 # the reveal plays out
        tap_lock()                      # next task: white
        time.sleep(1.8)
    return press_to_output(tracing(False), led_calls, {box_pid})


rng = random.Random(2026)
settled(int(open(box_log + ".pid").read()))
for condition in ROUNDS:
    with Load(condition == "wrk"):
        results[condition]["timing"] += timing_round(rng, condition)
subprocess.run(restart, check=True)     # the routine for today; the box restarted without --verbose
box_pid = int(open(box_log + ".pid").read())
box.wait_for_quest()
settled(box_pid)
box.tap(LOCK)                           # the quest starts: estimating the first task
time.sleep(1.0)
for condition in ROUNDS:
    with Load(condition == "wrk"):
        led = quest_round(box_pid)
    results[condition]["led"] += [x for x in led if x is not None]
    results[condition]["led_missing"] += led.count(None)
for condition in CONDITIONS:
    r = results[condition]
    for key in ("timing", "led"):
        r[f"{key}_p50_ms"], r[f"{key}_p99_ms"] = percentile(r[key], 50), percentile(r[key], 99)
        r[f"{key}_max_ms"], r[f"{key}_n"] = max(r[key], default=float("nan")), len(r[key])
print(json.dumps(results))
