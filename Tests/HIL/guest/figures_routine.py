#!/usr/bin/env python3
"""The figures' routine: thirty tasks (a figures run takes up to 60 presses in one quest),
on every day ("today") or only on a weekday that is not today ("other": the idle box has
nothing to show). Prints it in the import format.
usage: figures_routine.py today|other"""
import datetime, json, sys


def routine(today):
    weekday = (datetime.date.today().isoweekday() % 7) + 1          # 1 = Sunday … 7 = Saturday
    days = list(range(1, 8)) if today else [weekday % 7 + 1]
    return {"name": "figures", "displayName": "Figures", "activeDays": days,
            "tasks": [{"name": f"task-{i}", "displayName": f"Task {i}"} for i in range(1, 31)]}


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("today", "other"):
        sys.exit("usage: figures_routine.py today|other")
    print(json.dumps(routine(sys.argv[1] == "today")))
