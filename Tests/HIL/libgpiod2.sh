#!/usr/bin/env bash
# The box on libgpiod 2.x, the library of current Raspberry Pi OS (trixie's libgpiod3), on a
# real kernel: questbox built against trixie's libgpiod-dev 2.x (scripts/libgpiod2-prefix.sh,
# Debian's own packages unpacked into a folder), checked to link libgpiod.so.3 (the shim's v2
# branch), then the HIL scenarios doctor, quest and bounce run with it in the VM
# (libgpiod.so.3 found through LD_LIBRARY_PATH).
#   Tests/HIL/libgpiod2.sh [SCENARIO…]      (default: doctor quest bounce)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
fail() { echo "FAIL libgpiod2: $*" >&2; exit 1; }
{ read -r pkgconfig; read -r libdir; } < <(scripts/libgpiod2-prefix.sh)
compgen -G "$libdir/libgpiod.so.3*" >/dev/null || fail "no libgpiod.so.3 in $libdir"
Tests/HIL/prepare.sh
echo "libgpiod2: building questbox against libgpiod $(PKG_CONFIG_PATH=$pkgconfig pkg-config --modversion libgpiod)" >&2
# In the usual debug folder, with test.sh's flags: only the GPIO shim and what imports it are
# compiled again (about 20 s here, where a folder of its own built every dependency again,
# 6 minutes), and the next ./test.sh or Tests/HIL/run.sh compiles them back for 1.6.
build=(--product questbox -Xswiftc -warnings-as-errors)
PKG_CONFIG_PATH=$pkgconfig swift build "${build[@]}" >&2
bin=$(PKG_CONFIG_PATH=$pkgconfig swift build "${build[@]}" --show-bin-path)
# The link must name libgpiod.so.3 (2.x), and the v1 library must not be linked as well.
needed=$(readelf -d "$bin/questbox" | sed -n 's/.*(NEEDED).*\[\(libgpiod[^]]*\)\].*/\1/p')
[[ $needed == "libgpiod.so.3" ]] || fail "$bin/questbox needs '${needed:-no libgpiod}', not libgpiod.so.3 alone"
scenarios=("$@")
((${#scenarios[@]})) || scenarios=(doctor quest bounce)
failed=0
for s in "${scenarios[@]}"; do
    Tests/HIL/vm.sh -- env LD_LIBRARY_PATH="$libdir" HIL_GPIO_API=2 Tests/HIL/guest/scenarios "$bin" "$s" || failed=$((failed + 1))
done
echo "hil (the libgpiod 2.x build, linked to $needed): ${#scenarios[@]} scenario(s), $failed failed"
((failed == 0))
