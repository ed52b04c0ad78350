#!/usr/bin/env bash
# Puts axe-core (Deque's accessibility engine, MPL-2.0) at $1, for pages.py to run in Chromium.
# It comes from PyPI inside selenium-axe-python's wheel (no npm registry is reachable here),
# pinned by version and hash, and cached between runs.
#   Tests/Browser/axe.sh OUT.js
set -euo pipefail
out=$1
version=2.2.0
wheel=selenium_axe_python-$version-py3-none-any.whl
sha256=b2c38b419e0cc4589c0b4d5d01938579bb95194eb748873e13cac7014e5546fd
cache=${XDG_CACHE_HOME:-$HOME/.cache}/questbox-ci
mkdir -p "$cache"
if ! echo "$sha256  $cache/$wheel" | sha256sum -c --status 2>/dev/null; then
    python=python3
    if ! "$python" -m pip --version >/dev/null 2>&1; then
        source "$(dirname "$0")/../../scripts/setup.sh"
        install_missing_packages python3-pip
        python=/usr/bin/python3
    fi
    "$python" -m pip download --quiet --no-deps --only-binary=:all: -d "$cache" "selenium-axe-python==$version" >&2
    echo "$sha256  $cache/$wheel" | sha256sum -c --status || { echo "axe: $wheel does not have the pinned hash" >&2; exit 1; }
fi
python3 - "$cache/$wheel" "$out" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    source = wheel.read("selenium_axe_python/axe-core/axe.min.js")
open(sys.argv[2], "wb").write(source)
PY
