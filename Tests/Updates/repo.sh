#!/usr/bin/env bash
# #69: the box's updates as a signed apt repository, checked as a box's apt checks it. From a
# package built with an update source (scripts/package-deb.sh --updates URI --updates-keyring
# KEYRING) and the secret key that matches its keyring:
#   - the package installs its source (a conffile) with `Signed-By:` its own keyring, and no
#     secret key;
#   - scripts/apt-repo.sh makes a repository the package's keyring verifies (InRelease and
#     Release.gpg by gpgv), and apt, given only the package's source and keyring, takes the
#     version from it over HTTP on loopback and downloads the very same file;
#   - apt refuses, with the reason in its output: a changed Packages file, a changed package
#     in the pool, a repository signed with another key, and one with no signature;
#   - scripts/apt-repo.sh refuses to publish with a key the package's keyring does not hold,
#     or a published version again with other contents.
# With KEEP, the verified repository is kept in KEEP/good and a copy signed with another key
# in KEEP/other-key, for the arm64 machine's `updates` scenario (trixie's apt, which checks
# signatures with sqv where bookworm's uses gpgv).
#   Tests/Updates/repo.sh DEB SECRET_KEY [KEEP]
set -euo pipefail
say() { echo "updates: $*" >&2; }
fail() { echo "FAIL updates: $*" >&2; exit 1; }
(($# == 2 || $# == 3)) || fail "usage: Tests/Updates/repo.sh DEB SECRET_KEY [KEEP] (a package built with --updates, the key that matches its keyring)"
deb=$(realpath -e "$1") && key=$(realpath -e "$2") || fail "no such file: $1 or $2"
keep=${3:+$(realpath -m "$3")}
cd "$(dirname "$0")/../.."
source scripts/setup.sh
install_missing_packages apt-utils gnupg gpgv python3
passed=0
pass() { passed=$((passed + 1)); say "ok: $*"; }

work=$(mktemp -d /tmp/questbox-updates.XXXXXX)
server=
cleanup() {
    [[ -z $server ]] || kill "$server" 2>/dev/null || true
    gpgconf --homedir "$work/gnupg" --kill gpg-agent 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
version=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)

# The package's own source and keyring.
dpkg-deb -x "$deb" "$work/package"
dpkg-deb -e "$deb" "$work/control"
sources=$work/package/etc/apt/sources.list.d/questbox.sources
keyring=$work/package/usr/share/keyrings/questbox-archive-keyring.pgp
[[ -f $sources ]] || fail "the package installs no /etc/apt/sources.list.d/questbox.sources"
[[ -f $keyring ]] || fail "the package installs no /usr/share/keyrings/questbox-archive-keyring.pgp"
grep -qx /etc/apt/sources.list.d/questbox.sources "$work/control/conffiles" || fail "questbox.sources is not a conffile (a family's change to it would be overwritten)"
grep -qx 'Signed-By: /usr/share/keyrings/questbox-archive-keyring.pgp' "$sources" || fail "questbox.sources does not limit its trust to the package's keyring: $(cat "$sources")"
grep -qx 'Suites: stable' "$sources" || fail "questbox.sources names no suite 'stable'"
uri=$(sed -n 's/^URIs: //p' "$sources")
[[ $uri == http* || $uri == file:* ]] || fail "questbox.sources has no address: $(cat "$sources")"
mkdir -m 700 "$work/gnupg"
listed=$(gpg --homedir "$work/gnupg" --batch --with-colons --show-keys "$keyring" 2>/dev/null)
grep -q '^pub:' <<< "$listed" && ! grep -q '^sec:' <<< "$listed" || fail "the package's keyring is not a public key alone"
pass "the package installs its source ($uri) as a conffile, trusting its own public keyring alone"

# apt as on a box, in folders of its own: only the package's source (its address pointed at
# the repository served here) and its keyring; none of this machine's sources, keys or conf.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/apt/conf.d" "$work/apt/sources.list.d" "$work/apt/trusted.gpg.d" "$work/apt/preferences.d" "$work/apt/state/lists/partial" "$work/apt/cache/archives/partial" "$work/download"
: > "$work/apt/status"
cp "$keyring" "$work/apt/questbox-archive-keyring.pgp"
sed -e "s|^URIs: .*|URIs: http://127.0.0.1:$port/|" -e "s|^Signed-By: .*|Signed-By: $work/apt/questbox-archive-keyring.pgp|" "$sources" > "$work/apt/sources.list.d/questbox.sources"
cat > "$work/apt/apt.conf" <<EOF
Dir::Etc::main "/dev/null";
Dir::Etc::parts "$work/apt/conf.d";
Dir::Etc::sourcelist "/dev/null";
Dir::Etc::sourceparts "$work/apt/sources.list.d";
Dir::Etc::trusted "$work/apt/trusted.gpg";
Dir::Etc::trustedparts "$work/apt/trusted.gpg.d";
Dir::Etc::preferences "/dev/null";
Dir::Etc::preferencesparts "$work/apt/preferences.d";
Dir::State "$work/apt/state";
Dir::State::status "$work/apt/status";
Dir::Cache "$work/apt/cache";
Debug::NoLocking "true";
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::http::Proxy "DIRECT";
Acquire::Retries "0";
EOF
apt_box() { APT_CONFIG=$work/apt/apt.conf "$@"; }
# Serves FOLDER on the port (one server at a time), then runs apt-get update against it;
# its output in $work/update.log, its exit status returned.
serve() {
    [[ -z $server ]] || { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; }
    python3 -m http.server --bind 127.0.0.1 --directory "$1" "$port" > "$work/server.log" 2>&1 &
    server=$!
    local tries
    for tries in $(seq 100); do
        python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "the repository's server did not start: $(cat "$work/server.log")"
}
update() {
    rm -rf "$work/apt/state/lists" && mkdir -p "$work/apt/state/lists/partial"
    apt_box apt-get update > "$work/update.log" 2>&1
}
candidate() { apt_box apt-cache policy questbox 2>/dev/null | sed -n 's/^ *Candidate: //p'; }

# The repository, made and published as a release would be.
repo=$work/repo
scripts/apt-repo.sh --key "$key" --out "$repo" "$deb" 2> "$work/apt-repo.log" || { cat "$work/apt-repo.log" >&2; fail "apt-repo.sh failed"; }
release=$repo/dists/stable
for file in InRelease Release Release.gpg main/binary-$arch/Packages main/binary-$arch/Packages.gz; do
    [[ -f $release/$file ]] || fail "the repository has no dists/stable/$file"
done
gpgv --keyring "$keyring" "$release/InRelease" 2>/dev/null || fail "the package's keyring does not verify InRelease"
gpgv --keyring "$keyring" "$release/Release.gpg" "$release/Release" 2>/dev/null || fail "the package's keyring does not verify Release.gpg"
grep -q "$(sha256sum < "$release/main/binary-$arch/Packages" | cut -d' ' -f1) .* main/binary-$arch/Packages$" "$release/Release" || fail "Release does not sign the Packages file's SHA256"
pass "scripts/apt-repo.sh made dists/stable for $arch; the package's keyring verifies InRelease and Release.gpg"

serve "$repo"
update || { cat "$work/update.log" >&2; fail "apt-get update refused the signed repository"; }
grep -Eq '^(W|E):' "$work/update.log" && { cat "$work/update.log" >&2; fail "apt-get update warned on the signed repository"; }
[[ $(candidate) == "$version" ]] || fail "apt offers '$(candidate)' from the repository, not $version"
(cd "$work/download" && apt_box apt-get download questbox > "$work/download.log" 2>&1) || { cat "$work/download.log" >&2; fail "apt-get download failed"; }
cmp -s "$deb" "$work/download/"questbox_*_"$arch".deb || fail "the package apt downloaded is not the one published"
pass "apt verified the repository with the package's source and keyring, offers $version and downloads the same file"

# A tampered repository: apt must refuse each and say why. MUTATE runs in a copy.
refused() {  # WHAT EXPECTED_REGEX MUTATE…
    local what=$1 expected=$2
    shift 2
    rm -rf "$work/bad" "$work/download/"*.deb && cp -a "$repo" "$work/bad"
    (cd "$work/bad" && "$@")
    serve "$work/bad"
    local status=0
    update || status=$?
    if ((status == 0)); then
        # apt-get update fails on a hash or a signature; a changed package shows at download.
        (cd "$work/download" && apt_box apt-get download questbox > "$work/update.log" 2>&1) || status=$?
    fi
    ((status != 0)) || { cat "$work/update.log" >&2; fail "$what: apt took it"; }
    grep -Eq "$expected" "$work/update.log" || { cat "$work/update.log" >&2; fail "$what: apt refused it but did not say '$expected'"; }
    [[ ! -e $(echo "$work/download/"*.deb) ]] || fail "$what: a package was downloaded"
    pass "$what: refused ($(grep -Eo "$expected" "$work/update.log" | head -n 1))"
    if [[ -n $keep && $1 == sign_with_another_key ]]; then
        rm -rf "$keep/other-key" && mkdir -p "$keep" && cp -a "$work/bad" "$keep/other-key"
    fi
}
change_packages() {  # a package's hash in Packages changed, the signed Release left alone
    sed -i 's/^\(SHA256: \)[0-9a-f]/\10/' "dists/stable/main/binary-$arch/Packages"
    gzip -9n -kf "dists/stable/main/binary-$arch/Packages"
}
change_package() { printf 'x' >> "$(find pool -name '*.deb' | head -n 1)"; }
sign_with_another_key() {
    local other=$work/other-key
    mkdir -m 700 "$other"
    gpg --homedir "$other" --batch --quiet --pinentry-mode loopback --passphrase '' --quick-generate-key "Someone else" ed25519 sign never
    rm -f dists/stable/InRelease dists/stable/Release.gpg
    gpg --homedir "$other" --batch --quiet --pinentry-mode loopback --passphrase '' --clearsign -o dists/stable/InRelease dists/stable/Release
    gpg --homedir "$other" --batch --quiet --pinentry-mode loopback --passphrase '' --armor --detach-sign -o dists/stable/Release.gpg dists/stable/Release
    gpgconf --homedir "$other" --kill gpg-agent 2>/dev/null || true
}
unsign() { rm -f dists/stable/InRelease dists/stable/Release.gpg; }
refused "a changed Packages file" 'Hash Sum mismatch|Hashes of expected file' change_packages
refused "a changed package in the pool" 'Hash Sum mismatch|Size mismatch|Hashes of expected file|unexpected size' change_package
refused "a repository signed with another key" 'NO_PUBKEY|signatures couldn.t be verified|not signed|EXPKEYSIG|Missing key' sign_with_another_key
refused "a repository with no signature" 'is not signed|does not have a Release file' unsign

# apt-repo.sh itself: no repository its boxes would refuse, no version published twice.
scripts/apt-repo.sh --new-key "$work/another" 2>/dev/null
if scripts/apt-repo.sh --key "$work/another/questbox-signing.key" --out "$work/wrong" "$deb" 2> "$work/wrong.log"; then
    fail "apt-repo.sh published with a key the package's keyring does not hold"
fi
grep -q "built for another key" "$work/wrong.log" || { cat "$work/wrong.log" >&2; fail "apt-repo.sh refused another key without saying why"; }
[[ ! -e $work/wrong/dists/stable/InRelease ]] || fail "apt-repo.sh left a signed index behind after refusing"
pass "apt-repo.sh refuses to sign with a key the package's keyring does not hold"
# The same version built again with one more file (fast compression: only its bytes matter).
dpkg-deb -R "$deb" "$work/rebuilt"
echo "built twice" > "$work/rebuilt/usr/share/doc/questbox/REBUILT"
dpkg-deb --root-owner-group -Zgzip -z1 --build "$work/rebuilt" "$work/same-version.deb" > /dev/null
if scripts/apt-repo.sh --key "$key" --out "$repo" "$work/same-version.deb" 2> "$work/again.log"; then
    fail "apt-repo.sh published $version again with other contents"
fi
grep -q "published already with other contents" "$work/again.log" || { cat "$work/again.log" >&2; fail "apt-repo.sh refused a republished version without saying why"; }
gpgv --keyring "$keyring" "$release/InRelease" 2>/dev/null || fail "a refused publication broke the published repository"
pass "apt-repo.sh refuses to publish $version again with other contents, and the repository stays as it was"

# package-deb.sh refuses an address or keyring a box could not use, before it builds anything.
refuses_to_package() {  # WHY EXPECTED OPTION…
    local why=$1 expected=$2
    shift 2
    local status=0
    scripts/package-deb.sh "$@" "$work/never" > /dev/null 2> "$work/package.log" || status=$?
    ((status == 2)) || { cat "$work/package.log" >&2; fail "package-deb.sh $*: exit $status, not 2 ($why)"; }
    grep -q -- "$expected" "$work/package.log" || { cat "$work/package.log" >&2; fail "package-deb.sh $*: did not say '$expected' ($why)"; }
    [[ ! -e $work/never ]] || fail "package-deb.sh $*: made a package ($why)"
}
gpg --homedir "$work/gnupg" --batch --quiet --import "$keyring" 2>/dev/null
gpg --homedir "$work/gnupg" --batch --armor --export > "$work/armored.asc"
refuses_to_package "an address without its key" "go together" --updates http://127.0.0.1:8642/
refuses_to_package "a key without its address" "go together" --updates-keyring "$keyring"
refuses_to_package "a space in the address" "not an http(s) or file address" --updates 'http://a b/' --updates-keyring "$keyring"
refuses_to_package "a newline in the address" "not an http(s) or file address" --updates $'http://a/\nSigned-By: /x' --updates-keyring "$keyring"
refuses_to_package "a scheme apt would not fetch safely" "not an http(s) or file address" --updates ftp://a/ --updates-keyring "$keyring"
refuses_to_package "the secret key as the keyring" "holds a secret key" --updates http://a/ --updates-keyring "$key"
refuses_to_package "an armored keyring" "is armored" --updates http://a/ --updates-keyring "$work/armored.asc"
refuses_to_package "no key in the file" "no OpenPGP public key" --updates http://a/ --updates-keyring "$work/apt/apt.conf"
refuses_to_package "a folder as the keyring" "not a regular file" --updates http://a/ --updates-keyring "$work"
pass "package-deb.sh refuses an address or keyring a box could not use, saying which"
if [[ -n $keep ]]; then
    mkdir -p "$keep" && rm -rf "$keep/good" && cp -a "$repo" "$keep/good"
    say "kept the repository in $keep/good and one signed with another key in $keep/other-key"
fi
echo "updates: $passed passed, 0 failed" >&2
