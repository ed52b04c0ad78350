"""The questbox gpio-sim chip as a player's hands and eyes, for the guest's scenario scripts.

Presses are pulls written to sim_gpioK/pull (buttons are active-low: pull-down = pressed);
press times are read on CLOCK_MONOTONIC right before the write, the clock the kernel stamps
the edges with. Output levels are read from sim_gpioK/value."""
import sys, time

LOCK, STOP, BLUE = 0, 1, 6


class Box:
    def __init__(self, sysfs):
        self.sysfs = sysfs

    def pull(self, line, level):
        with open(f"{self.sysfs}/sim_gpio{line}/pull", "w") as f:
            f.write(level)

    def value(self, line):
        with open(f"{self.sysfs}/sim_gpio{line}/value") as f:
            return f.read().strip() == "1"

    def tap(self, line):
        """Presses for 80 ms; returns the press time (CLOCK_MONOTONIC, s)."""
        t = time.clock_gettime(time.CLOCK_MONOTONIC)
        self.pull(line, "pull-down")
        time.sleep(0.08)
        self.pull(line, "pull-up")
        return t

    def wait_for_quest(self, seconds=60):
        """Returns once the "quest available" LED has lit: the box is up."""
        deadline = time.monotonic() + seconds
        while not self.value(BLUE):
            if time.monotonic() > deadline:
                sys.exit("the box never showed a quest (LED_BLUE stayed off)")
            time.sleep(0.01)
