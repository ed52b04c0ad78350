"""The questbox gpio-sim chip as a player's hands and eyes, for the guest's scenario scripts.

Presses are pulls written to sim_gpioK/pull (buttons are active-low: pull-down = pressed);
press times are read on CLOCK_MONOTONIC right before the write, the clock the kernel stamps
the edges with. Output levels are read from sim_gpioK/value."""
import json, os, subprocess, sys, threading, time

LOCK, STOP, UP, DOWN, RED, GREEN, BLUE, BUZZER = range(8)
OUTPUTS = (RED, GREEN, BLUE, BUZZER)


def now():
    return time.clock_gettime(time.CLOCK_MONOTONIC)


class Box:
    def __init__(self, sysfs):
        self.sysfs = sysfs

    def pull(self, line, level):
        with open(f"{self.sysfs}/sim_gpio{line}/pull", "w") as f:
            f.write(level)

    def value(self, line):
        with open(f"{self.sysfs}/sim_gpio{line}/value") as f:
            return f.read().strip() == "1"

    def tap(self, line, hold=0.08):
        """Presses for `hold` s; returns the press time (CLOCK_MONOTONIC, s), read right
        before the write system call (the file is opened first). The time read right after
        it is kept in `last_write_end`: the edge happened between the two."""
        fd = os.open(f"{self.sysfs}/sim_gpio{line}/pull", os.O_WRONLY)
        try:
            t = now()
            os.write(fd, b"pull-down")
            self.last_write_end = now()
        finally:
            os.close(fd)
        time.sleep(hold)
        self.pull(line, "pull-up")
        return t

    def bouncy_press(self, line, rng, hold=0.06):
        """A press as a worn switch makes it: a burst of 5–20 edges that ends pressed, a
        hold, and a release burst that ends released, each written back to back (well
        within 10 ms). Returns the time of the first edge, how long each burst took to write
        in s (CLOCK_MONOTONIC), and each burst's edge count."""
        first, spans, counts = None, [], []
        for levels in (("pull-down", "pull-up"), ("pull-up", "pull-down")):
            edges = rng.randrange(5, 20, 2)           # 5–19, odd: the burst ends away from where it started
            counts.append(edges)
            fd = os.open(f"{self.sysfs}/sim_gpio{line}/pull", os.O_WRONLY)
            writes = [levels[k % 2].encode() for k in range(edges)]
            start = now()
            first = first if first is not None else start
            for level in writes:
                os.pwrite(fd, level, 0)
            spans.append(now() - start)
            os.close(fd)
            if levels[0] == "pull-down":
                time.sleep(hold)
        return first, spans, counts

    def wait_for_quest(self, seconds=60):
        """Returns once the "quest available" LED has lit: the box is up."""
        deadline = time.monotonic() + seconds
        while not self.value(BLUE):
            if time.monotonic() > deadline:
                sys.exit("the box never showed a quest (LED_BLUE stayed off)")
            time.sleep(0.01)


def start_watch(qb, data, watch_out, seconds=60):
    """`questbox watch --json` on the running box, its lines into `watch_out`: waits for the
    box's socket, then for watch's hello (it has connected). Returns the process."""
    deadline = time.monotonic() + seconds
    while not os.path.exists(os.path.join(data, "questbox.sock")):
        if time.monotonic() > deadline:
            sys.exit("the box never opened its socket")
        time.sleep(0.05)
    watch = subprocess.Popen([qb, "watch", "--json", "--data", data], stdout=open(watch_out, "wb"), stderr=subprocess.PIPE)
    while os.path.getsize(watch_out) == 0:
        if watch.poll() is not None or time.monotonic() > deadline:
            sys.exit("watch did not connect: " + (watch.stderr.read().decode() if watch.poll() is not None else "no hello"))
        time.sleep(0.05)
    return watch


class OutputRecorder(threading.Thread):
    """Samples output lines (default: the LED and buzzer) about every `period` s and keeps
    each change as (CLOCK_MONOTONIC s, (value of each line, in `lines` order)). The time is
    taken right after the reads, so a change is never stamped before it happened (latencies
    are upper bounds)."""

    def __init__(self, box, period=0.001, lines=OUTPUTS):
        super().__init__(daemon=True)
        self.period = period
        self.lines = list(lines)
        self.changes = []
        # (from, to): spans in which the sampler took no sample for over STALL s. The box's
        # lines could have changed anywhere in one; what the sampler saw of the box there
        # (when a light changed, how long a pulse was) is not a measurement of the box.
        self.stalls = []
        self.running = True
        self.fds = [os.open(f"{box.sysfs}/sim_gpio{line}/value", os.O_RDONLY) for line in self.lines]

    def sample(self):
        """The lines' values, read until two passes agree: the lines are read one by one,
        and a pass that straddles a change would show a state the box never set."""
        read = lambda: tuple(int(os.pread(fd, 4, 0)[:1] == b"1") for fd in self.fds)
        s = read()
        while (again := read()) != s:
            s = again
        return s

    # Real-time, below the box's loop (SCHED_FIFO 8) and audio thread (10): test equipment
    # must never hold off the device it measures (at the player's priority, this busy 1 ms
    # loop made the box's audio late under emulation), yet it runs before anything else.
    PRIORITY = 5
    STALL = 0.015

    def run(self):
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(self.PRIORITY))  # 0: this thread
        except OSError:
            pass
        last, last_began = None, None
        while self.running:
            began = now()
            s = self.sample()
            t = now()
            if s != last:
                self.changes.append((t, s))
                last = s
            if last_began is not None and t - last_began > self.STALL:
                self.stalls.append((last_began, t))
            last_began = began
            time.sleep(self.period)

    def first_change_after(self, t, lines, within=0.5):
        """Seconds from t to the first change of any of `lines` (None if none within)."""
        watched = [self.lines.index(line) for line in lines]
        before = None
        for when, values in self.changes:
            if when < t:
                before = values
                continue
            if before is None or any(values[i] != before[i] for i in watched):
                return when - t if when - t <= within else None
            before = values
        return None

    def stop(self):
        self.running = False
        self.join()
        for fd in self.fds:
            os.close(fd)
        return self.changes


COLORS = {(0, 0, 0): "off", (1, 1, 1): "white", (0, 1, 1): "cyan", (1, 0, 1): "magenta",
          (0, 1, 0): "green", (1, 1, 0): "yellow", (1, 0, 0): "red", (0, 0, 1): "blue"}


class Outputs:
    """What an OutputRecorder of the default lines kept: (time, (R, G, B, buzzer)) at each
    change, read back as colours and pulses."""

    def __init__(self, changes):
        self.changes = [(t, tuple(s)) for t, s in changes]

    def state_at(self, t):
        s = (0, 0, 0, 0)
        for when, value in self.changes:
            if when > t:
                break
            s = value
        return s

    def between(self, a, b):
        return [(t, s) for t, s in self.changes if a <= t < b]

    def first_color_after(self, t, color, within):
        """Seconds from t to the first change to `color` (a COLORS name) within `within`."""
        for when, s in self.between(t, t + within):
            if COLORS.get(s[:3]) == color:
                return when - t
        return None

    def pulses(self, index, a, b):
        """(start, length) of every pulse of line `index` (0–2: R, G, B; 3: the buzzer) that
        switches on in [a, b); one already on at a is not counted."""
        pulses, on_at, last = [], None, self.state_at(a)[index]
        for t, s in self.between(a, b + 1.0):
            if s[index] and not last and t < b:
                on_at = t
            elif not s[index] and last and on_at is not None:
                pulses.append((on_at, t - on_at))
                on_at = None
            last = s[index]
        return pulses


def read_watch(path):
    """The lines `questbox watch --json` wrote, as messages."""
    return [json.loads(line) for line in open(path) if line.strip()]


def stored_history(qb, data):
    """What the store holds, as `questbox history --json` prints it."""
    return json.loads(subprocess.run([qb, "history", "--json", "--data", data], capture_output=True, check=True).stdout)


class Problems(list):
    """The problems a scenario script found, one line each."""

    def check(self, ok, message):
        if not ok:
            self.append(message)
