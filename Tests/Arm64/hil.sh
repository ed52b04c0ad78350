#!/usr/bin/env bash
# The arm64 package on an arm64 machine with a real kernel's GPIO chip, sound card and I2C bus
# (#50): qemu-system-aarch64 (virt, a Cortex-A72 as in a Pi 4, software emulation) boots
# Debian trixie's arm64 kernel over a trixie arm64 root (Tests/HIL/prepare-arm64.sh, cached).
# One boot installs the package with apt-get (guest/arm64), then runs each amd64 HIL scenario
# named, in turn, against the installed programs, boards and sounds (a boot and an install
# took over a minute each under emulation: four boots cost CI's 90 minutes 3-4 of them):
#   doctor   the gpio-sim chip's 8 lines and the Loopback card found, through libgpiod 2.x
#   quest    kernel-stamped presses, LED and buzzer lines, the reveal sounds and the voice
#            captured from the loopback card sample for sample
#   display  the SSD1306 on i2c-stub decoded from the kernel's SMBus trace, and vfb
#   updates  (#69; by default when the package carries an update source) trixie's apt takes the
#            repository Tests/Updates/repo.sh kept in .build/hil-arm64/updates-repo with the
#            package's source and keyring, and refuses it signed with another key
#   purge    the package removed and purged again
#   figures  (not by default; #50's figures) the box, its voice, the web app and the link with a
#            broker started as their services start them: each one's memory idle, after a
#            quest and a minute later, start to ready; fails above 100 MB RSS for all four
#   Tests/Arm64/hil.sh DEB [SCENARIO…]      (default: doctor quest display [updates] purge)
set -euo pipefail
cd "$(dirname "$0")/../.."
checkout=$(pwd -P)
deb=$(realpath "${1:?usage: Tests/Arm64/hil.sh DEB [SCENARIO…]}")
shift
[[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || { echo "FAIL arm64 hil: $deb is not an arm64 package" >&2; exit 1; }
scenarios=("$@")
if ((${#scenarios[@]} == 0)); then
    scenarios=(doctor quest display)
    # The listing read whole first: `grep -q` on a pipe ends it early, and pipefail then
    # counted dpkg-deb's broken pipe as "no source" (ci-b ran no `updates`).
    listing=$(dpkg-deb -c "$deb")
    if grep -q '/etc/apt/sources.list.d/questbox.sources$' <<< "$listing"; then scenarios+=(updates); fi
    scenarios+=(purge)
fi
started=$SECONDS
Tests/HIL/prepare-arm64.sh
root=${HIL_ARM64_CACHE:-/tmp/questbox-hil-arm64}/root
# The checkout (the scenarios, the recorder, the package) appears in the guest at /src, bound
# in a mount namespace of this run's own.
cp "$deb" .build/hil-arm64/
mkdir -p "$root/src"
# The guest's status is the number of scenarios that failed (125: it never finished);
# each scenario's time is printed from inside it.
failed=0
unshare --mount --propagation private /usr/bin/env CHECKOUT="$checkout" ROOT="$root" DEB="/src/.build/hil-arm64/$(basename "$deb")" \
    bash -euo pipefail -c 'mount --bind "$CHECKOUT" "$ROOT/src"
        HIL_ARCH=arm64 HIL_ROOTFS="$ROOT" HIL_CWD=/src Tests/HIL/vm.sh -t 2400 -- Tests/HIL/guest/arm64 "$DEB" "$@"' \
    arm64 "${scenarios[@]}" || failed=$?
((failed != 125)) || failed=${#scenarios[@]}
echo "arm64 hil: ${#scenarios[@]} scenario(s) in the arm64 VM, $failed failed ($((SECONDS - started)) s)"
((failed == 0))
