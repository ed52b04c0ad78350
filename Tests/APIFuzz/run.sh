#!/usr/bin/env bash
# Schemathesis against the web app's own OpenAPI document (#13): every operation of
# /api/openapi.json is called with examples, boundary values and generated bodies (valid and
# not), signed in as the parent, with a simulated box running on the same store. Fails on any
# 5xx, any answer whose status, content type, headers or body the document does not describe.
#   Tests/APIFuzz/run.sh [SECONDS]      (default 120: the fuzzing phase's time budget)
set -euo pipefail
cd "$(dirname "$0")/../.."
budget=${1:-120}
source scripts/setup.sh
install_missing_packages curl
swift build --build-tests -Xswiftc -warnings-as-errors >&2
bin=$(swift build --show-bin-path)

# Schemathesis from PyPI, pinned, in a virtual environment cached between runs.
version=4.32.5
venv=${XDG_CACHE_HOME:-$HOME/.cache}/questbox-ci/schemathesis-$version
if [[ ! -x $venv/bin/st ]]; then
    python3 -m venv "$venv" 2>/dev/null || { install_missing_packages python3-venv; /usr/bin/python3 -m venv "$venv"; }
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$version" >&2
fi

source Tests/web-rig.sh
rig_begin apifuzz "$bin"
"$bin/questbox" routine import deploy/example-routine.json --data "$data" >/dev/null
printf '2468\n2468\n' | "$bin/questbox" pin set --data "$data" >/dev/null
rig_start_box
rig_start_web --resources Sources/WebApp/Resources

# A program's session: the token, then the parent's sign-in with the PIN.
csrf=$(curl -fsS -c "$work/cookies" "$base/api/v1/session" | python3 -c 'import json, sys; print(json.load(sys.stdin)["csrf"])')
curl -fsS -b "$work/cookies" -c "$work/cookies" -H "X-CSRF-Token: $csrf" -H "Content-Type: application/json" \
    -d '{"pin":"2468"}' "$base/api/v1/parent/session" >/dev/null
cookie=$(awk '{ sub(/^#HttpOnly_/, "") } !/^#/ && NF >= 7 { printf "%s%s=%s", sep, $6, $7; sep = "; " }' "$work/cookies")
[[ $cookie == *questbox_parent* ]] || { echo "apifuzz: the parent did not get a session ($cookie)" >&2; exit 1; }

# The sign-in is fuzzed with wrong PINs too: its lockouts (429) are part of what is checked.
status=0
"$venv/bin/st" run "$base/api/openapi.json" --no-color \
    -H "Cookie: $cookie" -H "X-CSRF-Token: $csrf" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
    --phases examples,coverage,fuzzing --max-time "$budget" --seed 13 --workers 1 \
    --generation-database none --request-timeout 10 || status=$?
if ! kill -0 "$web" 2>/dev/null; then echo "apifuzz: questbox-web died"; tail -n 20 "$work/web.log"; exit 1; fi
# The parent's session held all along, so the parent's operations were answered, not refused.
signed_in=$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $cookie" "$base/api/v1/parent/settings")
[[ $signed_in == 200 ]] || { echo "apifuzz: the parent's session ended during the run ($signed_in)" >&2; status=1; }
if ((status != 0)); then rig_logs; fi
exit "$status"
