#!/usr/bin/env python3
"""#31 / PAR-2 / #47, end to end: a stranger on the network tries to take the parent PIN with
the player's ordinary presses, and by racing the parent's own claim. The live simulated box and questbox-web run on one store (the web
rig); the stranger is an HTTP client with its own cookies; the player presses the box's
buttons over its socket (the simulated board's buttons). On the main of 2026-11-25 the
stranger got the PIN with the player's lock-in; it must never, and the parent's own act at
the box (STOP and DOWN held 3 s while the idle box asks) must still work.
usage: takeover.py BASE_URL SOCKET QUESTBOX DATA_DIR"""
import http.cookiejar, json, re, subprocess, sys, time, urllib.error, urllib.parse, urllib.request
from checks import check, problems
import checks

base, sock, questbox, data = sys.argv[1:5]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """One visitor: its own cookies, no redirects followed (the answers are checked)."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())
        self.csrf = None

    def get(self, path):
        try:
            with self.opener.open(base + path, timeout=10) as r:
                body = r.read().decode()
                status = r.status
        except urllib.error.HTTPError as e:
            body, status = e.read().decode(), e.code
        token = re.search(r'name="csrf" value="([^"]+)"', body)
        if token:
            self.csrf = token.group(1)
        return status, body

    def post(self, path, fields=()):
        form = urllib.parse.urlencode([("csrf", self.csrf or "")] + list(fields)).encode()
        request = urllib.request.Request(base + path, data=form, headers={"Content-Type": "application/x-www-form-urlencoded"})
        try:
            with self.opener.open(request, timeout=10) as r:
                return r.status, r.headers.get("Location"), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Location"), e.read().decode()

    def phase(self):
        return json.loads(self.get("/parent/setup/state")[1]).get("phase")

    def wait_phase(self, wanted, timeout=5):
        deadline = time.time() + timeout
        phase = self.phase()
        while phase != wanted and time.time() < deadline:
            time.sleep(0.1)
            phase = self.phase()
        return phase


def ask_box(request):
    return checks.ask_box(sock, request)


def press(button, action="tap"):
    reply = ask_box({"command": "press", "button": button, "action": action})
    check(reply.get("ok") is True, f"press {button} {action}: {reply}")
    time.sleep(0.15)     # a person's pace: presses closer than the debounce are one bounce


def hold(buttons, seconds):
    for b in buttons:
        press(b, "down")
    time.sleep(seconds)
    for b in reversed(buttons):
        press(b, "up")


def phase_of_box():
    return ask_box({"command": "state"}).get("box", {}).get("phase")


def wait_box(phase, timeout=5):
    deadline = time.time() + timeout
    while phase_of_box() != phase and time.time() < deadline:
        time.sleep(0.1)
    return phase_of_box()


def pin_accepted(pin):
    return subprocess.run([questbox, "pin", "check", "--data", data], input=pin + "\n", text=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def stranger_claims():
    stranger = Browser()
    stranger.get("/parent")
    status, location, body = stranger.post("/parent/claim")
    check(status == 303 and location == "/parent/setup", f"the stranger's claim: {status} {location} {body[:200]}")
    return stranger


def stranger_tries_pin(stranger, pin, when):
    status, location, _ = stranger.post("/parent/setup/pin", [("pin", pin), ("again", pin)])
    check(location != "/parent", f"{when}: the stranger set the PIN (303 to {location})")
    check(not pin_accepted(pin), f"{when}: `questbox pin check` accepts the stranger's {pin}")


# 1. The takeover: a PIN is set; the player starts a quest, the stranger claims, the
#    player locks in the guess. Today's main gave the stranger the PIN here.
check(pin_accepted("2468"), "the rig's PIN is not 2468")
press("lock")                                        # the player starts the quest
check(wait_box("estimating") == "estimating", "the quest did not start")
stranger = stranger_claims()
check(stranger.wait_phase("queued") == "queued", f"a claim during a quest is not queued: {stranger.phase()}")
press("lock")                                        # an ordinary lock-in
check(wait_box("active") == "active", "the guess was not locked in")
time.sleep(0.5)
check(stranger.phase() == "queued", f"the lock-in moved the stranger's claim: {stranger.phase()}")
stranger_tries_pin(stranger, "0000", "after the lock-in")
# STOP and DOWN held together during the task (the act's own buttons), then the quest paused
# by holding STOP: still the quest's presses.
time.sleep(2.2)                                      # past GAME-4's guard
hold(["down", "stop"], 1.0)
check(wait_box("revealing") == "revealing", "the task did not end")
check(stranger.phase() == "queued", f"the quest's STOP+DOWN moved the claim: {stranger.phase()}")
press("lock")                                        # next task
check(wait_box("estimating") == "estimating", "no next task")
hold(["stop", "down"], 3.6)                          # held through the abandon
check(wait_box("idle") == "idle", "the quest was not paused")
check(stranger.wait_phase("waiting") == "waiting", f"the idle box does not ask: {stranger.phase()}")
check(stranger.phase() != "confirmed", "the quest's held buttons allowed the claim")
stranger_tries_pin(stranger, "0000", "once the box asks")
# 2. The player just plays: LOCK starts a quest and ends the stranger's claim.
press("lock")
check(wait_box("estimating") == "estimating", "LOCK did not start a quest while the box asked")
check(stranger.wait_phase("failed") == "failed", f"starting a quest did not end the claim: {stranger.phase()}")
_, page = stranger.get("/parent/setup")
check("Someone started a quest on the box (LOCK)" in page, "the page does not say why the claim ended")
stranger_tries_pin(stranger, "0000", "after the claim ended")
hold(["stop"], 3.6)                                  # the player pauses the quest
check(wait_box("idle") == "idle", "the quest was not paused")
# 2b. Touch kiosks (#33): a stranger's browser presses nothing, asking to be paired pairs
#     nothing, and even a paired kiosk's touch presses never make the act for a claim.
time.sleep(0.3)
status, _, _ = stranger.post("/kiosk/press", [("button", "lock"), ("action", "tap")])
check(status == 403, f"a stranger's touch press: {status}")
stranger.get("/kiosk")
status, location, _ = stranger.post("/kiosk/pair")
check(status == 303, f"asking to pair: {status}")
_, page = stranger.get("/kiosk")
code = re.search(r"enters <strong>(\d{6})</strong>", page)
check(code is not None, "the asking browser shows no code")
if code:
    status, location, _ = stranger.post("/parent/kiosks/pair", [("code", code.group(1)), ("name", "Mine")])
    check(location != "/parent/kiosks?done=paired", f"the stranger paired its own browser: {status} {location}")
status, _, _ = stranger.post("/kiosk/press", [("button", "lock"), ("action", "tap")])
check(status == 403 and phase_of_box() == "idle", f"an asking browser's touch press: {status}, box {phase_of_box()}")
kiosk = Browser()                                    # the family's paired kiosk
kiosk.get("/parent")
kiosk.post("/parent/sign-in", [("pin", "2468")])
kiosk.get("/parent/kiosks")
status, location, _ = kiosk.post("/parent/kiosks/this", [("name", "Kitchen display")])
check(location == "/parent/kiosks?done=paired", f"the parent could not pair the kiosk: {status} {location}")
kiosk.post("/parent/sign-out")
kiosk.get("/kiosk")
claimer = stranger_claims()
check(claimer.wait_phase("waiting") == "waiting", f"the idle box does not ask: {claimer.phase()}")
for button in ("stop", "down"):
    status, _, _ = kiosk.post("/kiosk/press", [("button", button), ("action", "down")])
    check(status == 204, f"the paired kiosk's {button} down: {status}")
    time.sleep(0.15)
time.sleep(4.0)
check(claimer.phase() == "waiting", f"STOP and DOWN held on a touch screen moved the claim: {claimer.phase()}")
for button in ("down", "stop"):
    kiosk.post("/kiosk/press", [("button", button), ("action", "up")])
    time.sleep(0.15)
stranger_tries_pin(claimer, "0000", "after the touch hold")
kiosk.post("/kiosk/press", [("button", "lock"), ("action", "tap")])   # the player plays from the glass
check(wait_box("estimating") == "estimating", "a paired kiosk's LOCK did not start the quest")
check(claimer.wait_phase("failed") == "failed", f"starting a quest did not end the claim: {claimer.phase()}")
hold(["stop"], 3.6)
check(wait_box("idle") == "idle", "the quest was not paused")
# 2c. #47, the claim swap: the parent asks, a stranger watching the box's events asks too
#     (twice, 2 s apart, as the attacker did). The stranger is refused; the box keeps
#     showing the parent's code, which her page shows too; her act confirms hers only.
parent = Browser()
parent.get("/parent")
status, location, _ = parent.post("/parent/claim")
check(status == 303 and location == "/parent/setup", f"the parent's claim: {status} {location}")
check(parent.wait_phase("waiting") == "waiting", f"the idle box does not ask the parent's claim: {parent.phase()}")
_, page = parent.get("/parent/setup")
mine = re.search(r"Your code <strong>(\d) (\d) (\d)</strong>", page)
check(mine is not None, "the parent's page shows no code")
mine = "".join(mine.groups()) if mine else "?"
check((ask_box({"command": "state"}).get("screen") or {}).get("match") == mine, "the box does not show the parent's code")
intruder = Browser()
intruder.get("/parent")
for attempt in range(2):
    time.sleep(2.1)
    status, location, body = intruder.post("/parent/claim")
    check(status == 409 and "Someone is setting up the box right now" in body,
          f"a second claim while the parent's is open: {status} {location} {body[:160]!r}")
    check((ask_box({"command": "state"}).get("screen") or {}).get("match") == mine, "the box's code changed to another claim's")
    check(parent.phase() == "waiting", f"the stranger's claim moved the parent's: {parent.phase()}")
hold(["stop", "down"], 3.6)
check(parent.wait_phase("confirmed") == "confirmed", f"the parent's act did not confirm her claim: {parent.phase()}")
stranger_tries_pin(intruder, "0000", "after the parent's act")
status, location, _ = parent.post("/parent/setup/pin", [("pin", "1357"), ("again", "1357")])
check(status == 303 and location == "/parent", f"the parent could not choose her PIN: {status} {location}")
# PAR-2's reset: over an existing PIN the new one waits 24 hours, and the old one still holds.
check(not pin_accepted("1357") and pin_accepted("2468"), "a new PIN over an existing one took effect without its 24 hours")
check("A new PIN was asked for at the box" in parent.get("/parent")[1], "the door does not say a new PIN waits")
check(wait_box("idle") == "idle", "the box is not idle after the act")

# 3. A claim never blocks play, and a stranger cannot keep asking: 5 claims a quarter hour
#    (each said no to at the box with UP before the next, as one open claim refuses others).
codes = []
for i in range(6):
    time.sleep(2.1)
    other = Browser()
    other.get("/parent")
    codes.append(other.post("/parent/claim")[0])
    if codes[-1] == 303:
        check(other.wait_phase("waiting") == "waiting", f"claim {i + 1} was not asked: {other.phase()}")
        press("up")
        check(other.wait_phase("failed") == "failed", f"UP did not end claim {i + 1}: {other.phase()}")
check(codes.count(429) >= 2 and 409 not in codes, f"claims are not limited: {codes}")
check(ask_box({"command": "state"}).get("box", {}).get("buttonCheck") is False, "a claim holds the box's buttons")
press("lock")
check(wait_box("estimating") == "estimating", "a waiting claim kept the player from playing")
hold(["stop"], 3.6)
check(wait_box("idle") == "idle", "the quest was not paused")
check(pin_accepted("2468"), "the parent's PIN changed")
# 4. DNS rebinding: a page of another site reaching the box under its own name (one Host
#    header, as a browser sends it) is refused before anything is read or started.
for method, path in (("GET", "/api/v1/stats"), ("POST", "/parent/claim"), ("GET", "/parent/setup")):
    request = urllib.request.Request(base + path, method=method, data=b"" if method == "POST" else None,
                                     headers={"Host": "rebind.attacker.example:8080", "Sec-Fetch-Site": "same-origin"})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            status, body = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read().decode()
    check(status == 421 and "is not a name of this box" in body, f"rebinding {method} {path}: {status} {body[:120]!r}")
print(f"takeover: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
