"""What the security scripts share: problems collected as they are found (each printed once),
and one request to the running box over its socket."""
import json, socket

problems = []


def check(ok, message):
    if not ok:
        problems.append(message)
        print("problem:", message)
    return ok


def ask_box(sock, request):
    """One request to the box on its socket (past its hello line); its reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(sock)
        f = s.makefile("rwb")
        f.readline()
        f.write(json.dumps(dict(request, id="t")).encode() + b"\n")
        f.flush()
        while True:
            reply = json.loads(f.readline())
            if reply.get("type") == "reply":
                return reply
