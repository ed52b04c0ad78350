#!/usr/bin/env python3
"""The figures' routine: thirty tasks (a figures run takes up to 60 presses in one quest),
on every day ("today") or only on a weekday that is not today ("other": the idle box has
nothing to show). Prints it in the import format; TASKS (default 30) makes it longer.
usage: figures_routine.py today|other [TASKS]"""
import datetime, json, sys


def routine(today, count=30):
    weekday = (datetime.date.today().isoweekday() % 7) + 1          # 1 = Sunday … 7 = Saturday
    days = list(range(1, 8)) if today else [weekday % 7 + 1]
    return {"name": "figures", "displayName": "Figures", "activeDays": days,
            "tasks": [{"name": f"task-{i}", "displayName": f"Task {i}"} for i in range(1, count + 1)]}


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in ("today", "other") or (len(sys.argv) == 3 and not sys.argv[2].isdigit()):
        sys.exit("usage: figures_routine.py today|other [TASKS]")
    print(json.dumps(routine(sys.argv[1] == "today", int(sys.argv[2]) if len(sys.argv) == 3 else 30)))
