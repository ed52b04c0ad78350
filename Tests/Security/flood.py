#!/usr/bin/env python3
"""#47, end to end: "One stranger makes the web app unreachable: 260 open /kiosk/events
streams (or 256 idle keep-alives) fill the 256-connection cap and a normal GET times out for
90 s; 300 half-sent heads delay a GET 10 s." Against the live questbox-web: a stranger on
127.0.0.2 opens 300 silent connections, one on 127.0.0.3 300 half-sent heads and one on
127.0.0.4 60 event streams; each keeps at most its share (an eighth of the cap) and the
parent's GET from 127.0.0.1 is answered at once every time. The stranger's places are given
back when he lets go.
usage: flood.py BASE_URL"""
import http.client, socket, sys, time, urllib.parse
from checks import check, problems

base = sys.argv[1]
host, port = urllib.parse.urlsplit(base).hostname, urllib.parse.urlsplit(base).port
SHARE = 32  # ConnectionLimits: 256 / 8


def connect(source):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(5)
    s.connect((host, port))
    return s


def still_open(sockets, wait=3.0):
    """The sockets the server has not closed `wait` seconds after they were opened."""
    time.sleep(wait)
    alive = []
    for s in sockets:
        s.setblocking(False)
        try:
            data = s.recv(65536)
            if data:  # an answer (an event stream's frames): still open
                alive.append(s)
        except BlockingIOError:
            alive.append(s)
        except OSError:
            pass
    return alive


def parent_get(what):
    started = time.monotonic()
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.request("GET", "/kiosk")
        status = connection.getresponse().status
    except OSError as error:
        status = f"no answer ({error})"
    took = time.monotonic() - started
    connection.close()
    check(status == 200 and took < 3, f"the parent's GET during {what}: {status} after {took:.1f} s")
    return took


def flood(source, count, send=b""):
    sockets = []
    for _ in range(count):
        try:
            s = connect(source)
            if send:
                s.sendall(send)
            sockets.append(s)
        except OSError:
            pass  # refused or reset at once: what the share does
    return sockets


figures = {}
for name, source, send in [
    ("300 silent connections", "127.0.0.2", b""),
    ("300 half-sent heads", "127.0.0.3", b"GET /kiosk HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "),
    ("60 event streams", "127.0.0.4", b"GET /kiosk/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
]:
    count = 60 if "event" in name else 300
    sockets = flood(source, count, send)
    alive = still_open(sockets)
    check(len(alive) <= SHARE, f"{name} from {source}: {len(alive)} kept open, more than the share of {SHARE}")
    figures[name] = {"kept": len(alive), "parent_s": round(parent_get(name), 3)}
    for s in sockets:
        s.close()

# Let go: the same address is served again.
time.sleep(1)
again = http.client.HTTPConnection(host, port, timeout=10, source_address=("127.0.0.2", 0))
again.request("GET", "/kiosk")
check(again.getresponse().status == 200, "a stranger's address was not served again after he let go")
again.close()
print("flood:", figures)
print(f"flood: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
