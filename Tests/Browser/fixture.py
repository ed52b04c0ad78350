#!/usr/bin/env python3
"""A player's last weeks for the browser tests: the example morning quest played with
`questbox simulate --events` on 12 of the last 26 days, each day's tasks taking a little
more or less time (every stop moved, and all that follows it), so the chart has a shape.
TODAY (YYYY-MM-DD) is the day the pages are looked at; without it, today.
usage: fixture.py QUESTBOX DATA_DIR EVENTS_FILE [TODAY]"""
import datetime, os, subprocess, sys, tempfile

questbox, data, events = sys.argv[1:4]
lines = [l.split() for l in open(events) if l.strip() and not l.startswith("#")]
today = (datetime.datetime.strptime(sys.argv[4], "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc) if len(sys.argv) > 4
         else datetime.datetime.now(datetime.timezone.utc)).replace(hour=7, minute=10, second=0, microsecond=0)
env = dict(os.environ, QUESTBOX_CLOCK_TRUSTED="1")
for n, days_ago in enumerate([26, 24, 22, 19, 17, 15, 12, 9, 7, 5, 3, 1]):
    shift, out, locked = 0, [], 0
    for i, (ms, key, direction) in enumerate(lines):
        if key == "lock" and direction == "up":
            locked = int(ms)
        if key == "stop" and direction == "down" and locked is not None:   # a bounce's later edges move with it
            # The task takes -25 % … +35 % of the script's time, different each day and
            # task, and closer to the estimate towards the end.
            factor = ((n * 7 + i * 13) % 13 - 5) * 0.05 * (12 - n) / 12
            shift += int((int(ms) - locked) * factor)
            locked = None
        out.append(f"{int(ms) + shift} {key} {direction}")
    with tempfile.NamedTemporaryFile("w", suffix=".events", delete=False) as f:
        f.write("\n".join(out) + "\n")
    now = (today - datetime.timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    subprocess.run([questbox, "simulate", "--events", f.name, "--now", now, "--data", data],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    os.unlink(f.name)
