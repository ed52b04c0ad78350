"""The figures' measuring tools inside the VM (figures.py, web_load.py): presses written to
gpio-sim with their write calls timed, the kernel's function tracer as the reference for when
an edge happened, and the figures computed from both."""
import bisect, os, re, subprocess, sys

from box import now


class Presses:
    """Pull writes to gpio-sim lines, each press's write call kept as (line, before, after)
    on CLOCK_MONOTONIC: the edge is one instant inside it."""

    def __init__(self, sysfs, lines):
        self.fds = {line: os.open(f"{sysfs}/sim_gpio{line}/pull", os.O_WRONLY) for line in lines}
        self.calls = []

    def pull(self, line, pressed):
        t = now()
        os.pwrite(self.fds[line], b"pull-down" if pressed else b"pull-up", 0)
        if pressed:
            self.calls.append((line, t, now()))
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


# Under TCG the guest locked up (a soft lockup of the CPU that patched the kernel's text)
# when the tracer was switched on and off while it ran: 1 in about 16 on/off cycles in an
# idle guest, and at the first switch in two figures runs in a row (2026-11-29), with the
# box and gpiozero busy. So the kernel is patched as seldom as can be, and while nothing
# measured runs: the function tracer once (`arm`, before the box and gpiozero start), the
# scheduler's events once (`events_on`, figures.py between gpiozero's end and the box's
# restart; on from boot they cost gpiozero's idle 3× its CPU); a measurement then only sets
# `tracing_on` and the events' filters, and clears the buffer.
EVENTS = ("sched:sched_switch", "sched:sched_waking")
NO_EVENTS = (("events/sched/sched_waking/filter", "pid == -1"),
             ("events/sched/sched_switch/filter", "prev_pid == -1 && next_pid == -1"))


def _write(name, value):
    with open(f"{TRACE}/{name}", "w") as f:
        f.write(value)


# The system calls a diagnosis follows (`arm(syscalls=True)`, figures-run's `syscalls`): where
# the loop's time between getting a CPU and setting the line goes.
SYSCALLS = ("__x64_sys_read", "__x64_sys_ioctl", "__x64_sys_poll", "__x64_sys_ppoll", "__x64_sys_clock_gettime",
            "__x64_sys_adjtimex", "__x64_sys_write", "__x64_sys_futex", "__x64_sys_getrandom", "__x64_sys_timerfd_settime")


def arm(syscalls=False):
    """The function tracer on for gpio-sim's raise and sets (its module loaded), and with
    `syscalls` the system calls above (of every process: a bigger buffer), the buffer off:
    once per VM."""
    if not os.path.exists(f"{TRACE}/trace_clock"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACE], check=True)
    for name, value in (("tracing_on", "0"), ("current_tracer", "nop"), ("trace_clock", "mono"),
                        ("buffer_size_kb", "32768" if syscalls else "16384"), ("set_ftrace_filter", " ".join((RAISE,) + SETS)),
                        ("set_ftrace_pid", "")):
        _write(name, value)
    for call in SYSCALLS if syscalls else ():
        try:
            with open(f"{TRACE}/set_ftrace_filter", "a") as f:
                f.write(call)
        except OSError:
            print(f"kernel_trace: no function {call} to trace", file=sys.stderr)
    for name, value in (("current_tracer", "function"), ("trace", "")):
        _write(name, value)


def events_on():
    """The scheduler's events on (filtered to nothing until a measurement asks): once."""
    with open(f"{TRACE}/set_event") as f:
        if all(e in f.read().split() for e in EVENTS):
            return
    for name, value in NO_EVENTS:
        _write(name, value)
    _write("set_event", " ".join(EVENTS))


_ASKED = {}


def tracing(on, functions=(RAISE,), pid=None, events=(), filters=(), only_of=((), None)):
    """Starts recording calls of `functions` (only by `pid`, if given) and `events` (with
    their `filters`), or stops and returns them as (tid, CLOCK_MONOTONIC s, function or
    event, event payload or ""). `only_of` (functions, tid): those functions kept for that
    thread only (a diagnosis's system calls: every process's did not fit the guest's memory).
    `arm` must have run."""
    if on:
        with open(f"{TRACE}/current_tracer") as f:
            assert f.read().strip() == "function", "kernel_trace.arm() did not run before the measured programs started"
        _write("tracing_on", "0")
        if events:
            events_on()
        for name, value in (*(NO_EVENTS if events else ()), *filters):
            _write(name, value)
        _write("trace", "")
        _ASKED.update(functions=set(functions), pid=pid, events={e.split(":")[-1] for e in events},
                      only=set(only_of[0]), only_tid=only_of[1])
        _write("tracing_on", "1")
        return None
    _write("tracing_on", "0")
    # Line by line, kept only when asked for: a diagnosis's trace of every process's system
    # calls (64 MB) read whole did not fit the guest's 512 MB.
    out = []
    with open(f"{TRACE}/trace") as f:
        for line in f:
            m = TRACED.match(line)
            if not m:
                continue
            c = (int(m.group(1)), float(m.group(2)), m.group(3), (m.group(4) or "").rstrip("\n"))
            if c[2] in _ASKED["only"] and c[0] != _ASKED["only_tid"]:
                continue
            if c[2] in _ASKED["events"] or (c[2] in _ASKED["functions"] and (_ASKED["pid"] is None or c[0] == _ASKED["pid"])):
                out.append(c)
    return out


def _after_each_press(calls, presses, within):
    """For each press with its traced interrupt: (that moment, the trace's records from it
    on for `within` s, in time order)."""
    events = sorted((t, tid, name, payload) for tid, t, name, payload in calls)
    times = [e[0] for e in events]
    edges = edges_raised(presses, raises(calls))
    for line, a, _ in presses:
        edge = edges.get((line, a))
        if edge is not None:
            k = bisect.bisect_left(times, edge)
            yield edge, events[k:bisect.bisect_right(times, edge + within, lo=k)]


def loop_stages(calls, presses, loop, within=0.1):
    """Each press's way to its LED in three stages (ms), from a trace with the loop thread's
    sched_waking and sched_switch events: interrupt → loop woken, woken → loop on a CPU,
    on a CPU → its line set. A press that found the loop already running (woken by
    something else) counts 0 for the first two."""
    stages = []
    for edge, records in _after_each_press(calls, presses, within):
        woken = running = None
        for t, tid, name, payload in records:
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


def _field(payload, key):
    m = re.search(rf"\b{key}=(\S+)", payload)
    return m.group(1) if m else "?"


def loop_holders(calls, presses, loop, within=0.1):
    """Who kept each press from its LED, beside `loop_stages` (the same presses, the same
    order): the task the loop's CPU ran before the loop got it (`before`, with its priority as
    the kernel counts it: lower runs first) and the tasks that took the CPU from the loop
    before its line set (`preempted_by`)."""
    out = []
    for edge, records in _after_each_press(calls, presses, within):
        before, preempted = None, []
        for t, tid, name, payload in records:
            if name == "sched_switch" and f"next_pid={loop} " in payload + " ":
                before = before or f"{_field(payload, 'prev_comm')}/{_field(payload, 'prev_prio')}"
            elif name == "sched_switch" and f"prev_pid={loop} " in payload + " " and before is not None:
                preempted.append(f"{_field(payload, 'next_comm')}/{_field(payload, 'next_prio')}")
            elif name in SETS and tid == loop:
                out.append({"before": before, "preempted_by": preempted})
                break
    return out


def loop_timeline(calls, presses, loop, within=0.1):
    """Each press's way through the loop thread from getting a CPU to its line set: the
    system calls it entered on the way, as [(name, ms after it got the CPU)], ending with
    ("set", ms). Needs `arm(syscalls=True)` and the scheduler's events."""
    out = []
    for edge, records in _after_each_press(calls, presses, within):
        running, way = None, []
        for t, tid, name, payload in records:
            if name == "sched_switch" and f"next_pid={loop} " in payload + " " and running is None:
                running = t
            elif tid == loop and (name in SYSCALLS or name in SETS):
                running = running if running is not None else edge
                way.append(("set" if name in SETS else name.replace("__x64_sys_", ""), (t - running) * 1000))
                if name in SETS:
                    out.append(way)
                    break
    return out


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


def memory_kb(pid):
    """{"rss", "pss", "uss", "anon"} in kB from /proc/PID/smaps_rollup: RSS counts every page
    mapped, PSS shares each shared page among the processes mapping it, USS (private pages) is
    what the process alone holds, anon the pages no file backs (heap, stacks)."""
    fields = {}
    for line in open(f"/proc/{pid}/smaps_rollup"):
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            fields[parts[0].rstrip(":")] = int(parts[1])
    return {"rss": fields.get("Rss", 0), "pss": fields.get("Pss", 0),
            "uss": fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0),
            "anon": fields.get("Anonymous", 0)}


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


def box_edges(log, since=float("-inf"), until=float("inf")):
    """The kernel edge stamps (s) of BTN_UP and BTN_DOWN presses a box run with --verbose
    logged (between `since` and `until`), as (ups, downs), each in time order."""
    edges = {"up": [], "down": []}
    for line in open(log):
        m = re.search(r"button=(up|down) ns=(\d+) pressed=true .*\bedge\b", line)
        if m and since <= int(m.group(2)) / 1e9 <= until:
            edges[m.group(1)].append(int(m.group(2)) / 1e9)
    return edges["up"], edges["down"]


def interval_errors(measured_starts, measured_stops, injected, lines, raised=None):
    """|measured − injected| per interval in ms. `injected` maps ("start" | "stop", i) to the
    time read before that press's write; the injected interval runs between the two presses'
    edges as the traced interrupts date them (`raised`, from edges_raised), or, with none,
    as those times. Stops arrive in time order, so the k-th measured stop is the k-th
    injected one."""
    n = len(measured_starts)
    assert n == len(measured_stops) == sum(1 for kind, _ in injected if kind == "start"), \
        f"{len(measured_starts)} starts and {len(measured_stops)} stops seen, {sum(1 for kind, _ in injected if kind == 'start')} each pressed"
    order = sorted(range(n), key=lambda i: injected[("stop", i)])
    stop_of = {i: measured_stops[rank] for rank, i in enumerate(order)}
    at = (lambda kind, i: injected[(kind, i)]) if raised is None else \
        (lambda kind, i: raised[(lines[kind], injected[(kind, i)])])
    return [abs((stop_of[i] - measured_starts[i]) - (at("stop", i) - at("start", i))) * 1000 for i in range(n)]
