#!/usr/bin/env python3
"""Inside the VM: the running box is steered without a restart (#12). With `questbox run`
up and no routine, and `questbox watch --json` connected:
  1. a routine is imported: the quest light must come on within 1 s of the import's end;
  2. a one-task quest is played: the reveal is heard;
  3. `settings set sound.mute true`, the quest again: the reveal must be silent (checked
     from the capture by the caller) while its light still shows.
Prints JSON: import → light latency, the presses, the daemon's pid at start and end.
usage: live.py SYSFS QUESTBOX DATA ROUTINE_FILE WATCH_OUT"""
import json, subprocess, sys, time
from box import Box, OutputRecorder, LOCK, STOP, BLUE, now, start_watch

sysfs, qb, data, routine, watch_out = sys.argv[1:6]
box = Box(sysfs)

watch = start_watch(qb, data, watch_out)
time.sleep(0.3)
if box.value(BLUE):
    sys.exit("the quest light is on before any routine was imported")

recorder = OutputRecorder(box)
recorder.start()
# The quest light is a blink (150 ms of every 3 s): the box may see the commit through its
# watch on the store and light it before the CLI's own "reload" has been answered, and a
# light that came and went by the import's end is on time, not 3 s late. So its first
# blink is taken from the recorder, which samples from before the import began.
blue = recorder.lines.index(BLUE)
began = now()
result = subprocess.run([qb, "routine", "import", routine, "--data", data], capture_output=True)
imported = now()
if result.returncode != 0:
    sys.exit("import failed: " + result.stderr.decode())


def first_blink():
    return next((t for t, s in list(recorder.changes) if t >= began and s[blue]), None)


while (lit := first_blink()) is None:
    if now() - imported > 5:
        sys.exit("no quest light within 5 s of the import")
    time.sleep(0.002)
light_after_import = max(0.0, lit - imported)
time.sleep(0.5)

presses = []


def press(label, line, hold=0.08):
    t = box.tap(line, hold)
    presses.append({"label": label, "t": t})
    return t


def quest(tag):
    press(f"{tag}-start", LOCK)
    time.sleep(0.8)
    locked = press(f"{tag}-lock", LOCK)
    time.sleep(max(0.0, locked + 2.6 - now()))
    press(f"{tag}-stop", STOP, hold=0.04)
    time.sleep(3.0)                # the reveal's sound and lights run their course
    press(f"{tag}-next", LOCK)     # the summary
    time.sleep(2.5)
    press(f"{tag}-idle", LOCK)
    time.sleep(0.8)


quest("loud")
muted = subprocess.run([qb, "settings", "set", "sound.mute", "true", "--data", data], capture_output=True)
if muted.returncode != 0:
    sys.exit("settings set failed: " + muted.stderr.decode())
time.sleep(0.3)
quest("muted")
watch.terminate()
watch.wait()
print(json.dumps({"light_after_import": light_after_import, "import_seconds": imported - began, "lit_after_import_began": lit - began, "presses": presses, "outputs": recorder.stop()}))
