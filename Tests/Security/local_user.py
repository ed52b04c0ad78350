#!/usr/bin/env python3
"""#47, end to end: a local user of the Pi without the `questbox` group (here uid/gid 65534,
no groups, through setpriv) asks to set a new PIN from 127.0.0.1, as a page on the box's own
screen would. Loopback is no identity: the six-digit code never reaches that user (only a
paired touch kiosk gets it), and the box's socket is closed to them. The box's own question
is then said no to with UP, as a parent would.
Run as root (it switches uid for the user's part); otherwise it says why it skips.
usage: local_user.py BASE_URL SOCKET"""
import json, os, subprocess, sys, time
from checks import check, problems
import checks

base, sock = sys.argv[1:3]

if os.geteuid() != 0:
    print("local user: skipped (not root: no second uid to run as)")
    sys.exit(0)

# The local user's part, run as 65534 with no groups: a claim of its own, then every way
# to the code it may try.
USER_PART = r'''
import http.cookiejar, json, re, socket, sys, urllib.error, urllib.parse, urllib.request
base, sock = sys.argv[1:3]
class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k): return None
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())
def call(path, form=None):
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    try:
        with opener.open(urllib.request.Request(base + path, data=data), timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
status, page = call("/parent")
csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
claim, _ = call("/parent/claim", [("csrf", csrf)])
phase = ""
for _ in range(50):
    phase = json.loads(call("/parent/setup/state")[1])["phase"]
    if phase == "waiting": break
    import time; time.sleep(0.1)
code_status, code_body = call("/kiosk/setup-code")
_, kiosk = call("/kiosk")
shown = re.search(r"Set-up code <strong>(\d+)</strong>", kiosk)
try:
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect(sock)
    socket_open = True
except OSError:
    socket_open = False
print(json.dumps({"uid": __import__("os").getuid(), "groups": __import__("os").getgroups(), "claim": claim, "phase": phase,
                  "code": code_status, "codeBody": code_body[:80], "kioskCode": shown.group(1) if shown else None,
                  "socket": socket_open}))
'''

def ask_box(request):
    return checks.ask_box(sock, request)


run = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", USER_PART, base, sock],
                     capture_output=True, text=True, timeout=60)
check(run.returncode == 0, f"the local user's part failed: {run.stderr.strip()[-300:]}")
seen = json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else {}
print("local user:", seen)
check(seen.get("uid") == 65534 and seen.get("groups") == [], f"not a user without groups: {seen}")
check(seen.get("claim") == 303 and seen.get("phase") == "waiting", f"the local user's claim was not asked at the box: {seen}")
check(seen.get("code") == 404, f"/kiosk/setup-code answered the local user: {seen.get('code')} {seen.get('codeBody')!r}")
check(seen.get("kioskCode") is None, f"/kiosk showed the local user the code {seen.get('kioskCode')}")
check(seen.get("socket") is False, "the box's socket is open to a user without the group")
# The box asks about the local user's claim; at the box, UP says no.
screen = ask_box({"command": "state"}).get("screen") or {}
check(screen.get("kind") == "claim", f"the box does not ask: {screen.get('kind')}")
for action in ("down", "up"):
    ask_box({"command": "press", "button": "up", "action": action})
    time.sleep(0.15)
deadline = time.time() + 5
while time.time() < deadline and (ask_box({"command": "state"}).get("screen") or {}).get("kind") == "claim":
    time.sleep(0.1)
check((ask_box({"command": "state"}).get("screen") or {}).get("kind") == "idle", "UP at the box did not end the claim")
time.sleep(2.1)                       # claims are spaced 2 s: the next script's may start at once
print(f"local user: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
