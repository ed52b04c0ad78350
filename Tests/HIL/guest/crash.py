#!/usr/bin/env python3
"""Inside the VM: GAME-5 on a real chip. Starts `questbox run`, begins a task, kills the
daemon with SIGKILL mid-task, starts it again, stops the task, then kills it again during the
reveal. Prints the injected lock-in → stop interval (CLOCK_MONOTONIC, s).
usage: crash.py SYSFS_DIR LOG -- questbox run …"""
import signal, subprocess, sys, time
from box import Box, LOCK, STOP

box, log = Box(sys.argv[1]), sys.argv[2]
command = sys.argv[sys.argv.index("--") + 1:]

def start():
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(log, "a"))

def wait_for_log(text, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in open(log).read():
            return
        time.sleep(0.02)
    sys.exit(f"never logged {text!r}")

daemon = start()
box.wait_for_quest()
box.tap(LOCK)                      # start the quest
time.sleep(1.0)
locked = box.tap(LOCK)             # lock in: the task runs
time.sleep(1.0)
daemon.send_signal(signal.SIGKILL) # power cut mid-task
daemon.wait()
daemon = start()
wait_for_log("resuming the task in progress")
resumed = time.clock_gettime(time.CLOCK_MONOTONIC)
# GAME-8: a press within 3 s after the resume is not the task's STOP; 4 s leaves a margin
# for a daemon that logs the line and takes its step a moment apart under emulation.
time.sleep(max(0.0, max(locked + 3.5, resumed + 4.0) - time.clock_gettime(time.CLOCK_MONOTONIC)))
stopped = box.tap(STOP)
time.sleep(0.3)                    # the reveal is on
daemon.send_signal(signal.SIGKILL) # power cut during the reveal
daemon.wait()
print(stopped - locked)
