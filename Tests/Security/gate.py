#!/usr/bin/env python3
"""#47, end to end: the rooms' gate against the live questbox-web on a real socket. With
`web.player-pages paired`, every form of her paths the issue found open (double, triple and
trailing slashes, `//`, `/api//v1/…`), and look-alikes (percent-encoding, case, dot
segments), by GET, HEAD and POST, is refused to a stranger and changes nothing; the parent's
room refuses everyone without a session in every form; her paired phone is served, a
signed-in parent's browser is not (PRIV-1). Requests go out byte for byte as written (http.client, no normalising).
usage: gate.py BASE_URL QUESTBOX DATA_DIR"""
import http.client, json, re, subprocess, sys, time, urllib.parse
from checks import ask_box, check, problems

base, questbox, data = sys.argv[1:4]
host, port = urllib.parse.urlsplit(base).hostname, urllib.parse.urlsplit(base).port


class Visitor:
    """One client with its own cookies; each request on a fresh connection, path sent as is."""

    def __init__(self, source=None):
        self.cookies = {}
        self.csrf = ""
        self.source = (source, 0) if source else None  # another address on the loopback

    def request(self, method, path, body=None, content_type="application/x-www-form-urlencoded"):
        connection = http.client.HTTPConnection(host, port, timeout=10, source_address=self.source)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if body is not None:
            headers["Content-Type"] = content_type
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode(errors="replace")
        for value in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name] = rest.split(";")[0]
        token = re.search(r'name="csrf" value="([^"]+)"', text)
        if token:
            self.csrf = token.group(1)
        connection.close()
        return response.status, response.headers.get("Location"), text

    def post(self, path, fields=()):
        form = urllib.parse.urlencode([("csrf", self.csrf)] + list(fields))
        return self.request("POST", path, form)

    def expect(self, who, paths, allowed, method="GET"):
        """Each path asked by `method` answers one of `allowed` (HEAD: with no body)."""
        for path in paths:
            status, location, body = self.request(method, path)
            check(status in allowed and (method != "HEAD" or body == ""),
                  f"{who}: {method} {path} answered {status} {location or ''}{f' with {len(body)} characters' if method == 'HEAD' else ''}")


def settings_set(key, value):
    subprocess.run([questbox, "settings", "set", key, value, "--data", data], check=True, stdout=subprocess.DEVNULL)


def routines():
    return subprocess.run([questbox, "routine", "export", "--data", data], check=True, capture_output=True, text=True).stdout


# The forms the issue found open on the main of 2026-11-28, and look-alikes of them.
her_forms = ["/stats/", "//stats", "///stats", "//", "/api/v1/player/", "/api/v1//player", "//api/v1/player",
             "/api//v1/stats", "//me", "//quests/new", "/quests/new/", "//quests//saved",
             "/%73tats", "/STATS", "/Stats", "/./stats", "/x/../stats", "/stats/.", "/stats%2F", "/api/v1%2Fstats",
             "/%2Fstats", "/stats;x", "/stats?x=//", "/stats/day/2026-11-23", "//stats/day/2026-11-23", "/stats//day/2026-11-23"]
parent_forms = ["//parent/settings", "/parent//settings", "/parent/settings/", "/parent/routines//", "//api/v1/parent/settings",
                "/api/v1//parent/routines", "/%70arent/settings", "/PARENT/settings", "/parent/./settings",
                "/x/../parent/settings", "/parent/settings%2F", "/parent/backups/", "//parent/health"]

settings_set("web.player-pages", "paired")
time.sleep(1.2)                                       # the web app reads the setting at most once a second
before = routines()
stranger = Visitor()
stranger.request("GET", "/kiosk")
for method in ("GET", "HEAD"):
    stranger.expect("a stranger", her_forms, (403, 404), method=method)
for path in ("//api/v1/quests", "/api//v1/quests", "/api/v1/quests/"):
    status, _, _ = stranger.request("POST", path, json.dumps({"name": "Stranger's quest", "tasks": [{"name": "Nothing"}]}),
                                    content_type="application/json")
    check(status in (403, 404), f"a stranger: POST {path} (JSON) answered {status}")
for path in ("//me/switches", "/me//switches", "//quests", "/quests/"):
    status, _, _ = stranger.post(path, [("name", "Stranger's quest"), ("task", "Nothing"), ("action", "save"), ("sound", "off")])
    check(status in (403, 404), f"a stranger: POST {path} answered {status}")
for path in parent_forms:
    for method in ("GET", "HEAD", "POST"):
        status, location, _ = stranger.request(method, path, "csrf=x&pin=0000" if method == "POST" else None)
        allowed = (401, 404) if "/api/" in path else (303, 404)
        check(status in allowed and (status != 303 or location == "/parent"),
              f"a stranger: {method} {path} answered {status} {location or ''}")
check(routines() == before, "a refused request changed the routines")

# #47: a stranger's five wrong PINs (from 127.0.0.2) pause his address only: his right PIN
# would wait too, and the parent on her own address signs in at once.
stranger_pins = Visitor(source="127.0.0.2")
stranger_pins.request("GET", "/parent")
answers = [stranger_pins.post("/parent/sign-in", [("pin", "1357")]) for _ in range(5)]
check([a[0] for a in answers] == [401, 401, 401, 401, 429] and "from this device" in answers[-1][2],
      f"a stranger's wrong PINs: {[a[0] for a in answers]}")
status, _, _ = stranger_pins.post("/parent/sign-in", [("pin", "2468")])
check(status == 429, f"the paused address's right PIN answered {status}")

# A signed-in parent (her pages refused, PRIV-1), and her phone once the parent paired it.
parent = Visitor()
parent.request("GET", "/parent")
status, location, _ = parent.post("/parent/sign-in", [("pin", "2468")])
check(status == 303 and location == "/parent", f"the parent's sign-in: {status} {location}")
parent.expect("the parent", ("//parent/settings", "/parent//settings"), (200,))
parent.expect("the parent", ("/parent/settings",), (200,), method="HEAD")
parent.expect("the parent's browser, not her paired screen", ("//stats", "/stats/", "/api//v1/stats"), (403,))
phone = Visitor()
phone.request("GET", "/kiosk")
phone.post("/kiosk/pair", [("back", "/stats")])
_, _, page = phone.request("GET", "/stats")
code = re.search(r"enters <strong>(\d{6})</strong>", page)
if check(code is not None, "her phone asking to pair shows no code"):
    parent.request("GET", "/parent/kiosks")
    status, location, _ = parent.post("/parent/kiosks/pair", [("code", code.group(1)), ("name", "Her phone")])
    check(location == "/parent/kiosks?done=shows", f"the parent could not pair her phone: {status} {location}")
    phone.expect("her paired phone", ("//stats", "/stats/", "//", "/api//v1/stats", "//me"), (200,))
    phone.expect("her paired phone", ("/stats",), (200,), method="HEAD")
    phone.expect("her paired phone, not a route", ("/STATS", "/%73tats", "/./stats"), (404,))
    phone.expect("her paired phone in the parent's room", ("//parent/settings", "/api/v1//parent/routines"), (303, 401))

# PRIV-1: her phone pairs itself by the code the idle box gives. A stranger who asks gets a
# code only the box shows: no page, API answer or event stream of the web app carries it,
# five wrong tries take it back, and only the code read at the box pairs.
sock = data + "/questbox.sock"


def box_screen():
    return ask_box(sock, {"command": "state"}).get("screen") or {}


for _ in range(50):                                   # the box idle (the tests above pressed nothing)
    if box_screen().get("kind") == "idle":
        break
    time.sleep(0.1)
intruder = Visitor()
intruder.request("GET", "/stats")
status, location, _ = intruder.post("/pair/phone", [("back", "/stats")])
check(status == 303 and location == "/stats", f"a phone asking for a code: {status} {location}")
shown = box_screen()
code = shown.get("code", "")
if check(shown.get("kind") == "pairing" and re.fullmatch(r"\d{6}", code) is not None, f"the box gives no code: {shown}"):
    spaced = f"{code[:3]} {code[3:]}"
    for path in ("/kiosk", "/api/v1/state", "/kiosk/pairing-code", "/stats", "//kiosk", "/kiosk/"):
        status, _, body = intruder.request("GET", path)
        check(code not in body and spaced not in body, f"a stranger read the box's code at {path} ({status})")
    # The kiosk's event stream: its first frames, read for a moment.
    connection = http.client.HTTPConnection(host, port, timeout=3)
    connection.request("GET", "/kiosk/events")
    events = connection.getresponse()
    seen = b""
    try:
        while len(seen) < 4096:
            chunk = events.read1(1024)
            if not chunk:
                break
            seen += chunk
    except (TimeoutError, OSError):
        pass
    connection.close()
    check(code.encode() not in seen and spaced.encode() not in seen, "the kiosk's events carry the box's code")
    other = Visitor()
    other.request("GET", "/stats")
    status, _, _ = other.post("/pair/phone", [("back", "/stats")])
    check(status == 409, f"a second phone asking while a code shows: {status}")
    wrong = "000000" if code != "000000" else "111111"
    for attempt in range(5):
        status, _, body = intruder.post("/pair/phone/code", [("code", wrong), ("back", "/stats")])
    check(status == 409 and "Five wrong codes" in body, f"five wrong codes: {status}")
    status, _, _ = intruder.post("/pair/phone/code", [("code", code), ("back", "/stats")])
    check(status == 409, f"the right code after five wrong ones: {status}")
    check(box_screen().get("kind") == "idle", f"the box still shows the code after five wrong tries: {box_screen()}")
    # Her own phone, at the box: she reads the code there and types it.
    time.sleep(2.1)                                   # asks are 2 s apart
    hers = Visitor()
    hers.request("GET", "/stats")
    status, _, _ = hers.post("/pair/phone", [("back", "/stats")])
    code = box_screen().get("code", "")
    status, location, _ = hers.post("/pair/phone/code", [("code", code), ("back", "/stats")])
    check(status == 303 and location == "/stats", f"her phone typing the box's code: {status} {location}")
    hers.expect("her phone, paired at the box", ("/stats", "//me"), (200,))
    intruder.expect("the stranger", ("/stats",), (403,))
settings_set("web.player-pages", "open")

# #47: a client that writes its whole body before reading (Python's urllib, a 20 MB form) gets
# its answer (a lingering close), not a broken pipe, a reset or a wait: the 413, and the gate's
# 403 that refuses the body unread (her pages paired again for it).
import urllib.error, urllib.request
settings_set("web.player-pages", "paired")
time.sleep(2.2)                                       # the web app's 2 s view of the setting
try:
    urllib.request.urlopen(urllib.request.Request(
        base.rstrip("/") + "/quests", data=b"name=" + b"1" * (20 * 1024 * 1024), method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded"}), timeout=30)
    check(False, "a 20 MB form to a paired-only page was taken")
except urllib.error.HTTPError as error:
    check(error.code in (403, 413), f"a 20 MB form to a paired-only page: {error.code}")
except OSError as error:
    check(False, f"a 20 MB form to a paired-only page sent whole before reading: {error!r}, not its answer")
settings_set("web.player-pages", "open")
time.sleep(2.2)
for path in ("/parent/sign-in", "/quests"):
    try:
        urllib.request.urlopen(urllib.request.Request(
            base.rstrip("/") + path, data=b"pin=" + b"1" * (20 * 1024 * 1024), method="POST",
            headers={"Content-Type": "application/x-www-form-urlencoded"}), timeout=30)
        check(False, f"a 20 MB form to {path} was taken")
    except urllib.error.HTTPError as error:
        check(error.code == 413, f"a 20 MB form to {path}: {error.code}, expected 413")
    except OSError as error:
        check(False, f"a 20 MB form to {path} sent whole before reading: {error!r}, not the 413")
print(f"gate: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
