#!/usr/bin/env bash
# The box's updates as a signed apt repository: static files any web host can serve
# (docs/updates.md). apt on the box verifies InRelease against the keyring its package
# installed (`Signed-By:`), then every Packages file and .deb against the hashes it signs.
#
#   scripts/apt-repo.sh --new-key DIR
#       a new signing key: DIR/questbox-signing.key (secret: keep it off the repository and
#       off every box) and DIR/questbox-archive-keyring.pgp (the public keyring, for
#       scripts/package-deb.sh --updates-keyring)
#   scripts/apt-repo.sh --key KEY --out REPO [--suite stable] DEB…
#       adds the packages to REPO (made if missing; versions already there stay, so a box can
#       be given any published version), writes dists/SUITE/main/binary-ARCH/Packages and
#       dists/SUITE/Release, signs it (InRelease, Release.gpg) with the secret key in KEY and
#       checks the signature as a box would: against the public key and against the keyring
#       each package carries, so a repository its own boxes would refuse is never published.
#       $QUESTBOX_SIGNING_PASSPHRASE_FILE: the key's passphrase, when it has one.
set -euo pipefail
fail() { echo "apt-repo: $*" >&2; exit 1; }
keyring_in_package=usr/share/keyrings/questbox-archive-keyring.pgp

# Paths as given, from the caller's folder (the script then works from the checkout's).
mode= key= out= suite=stable debs=()
while (($#)); do
    case $1 in
        --new-key) mode=new-key; out=$(realpath -m "${2:?--new-key needs a folder}"); shift 2 ;;
        --key) key=$(realpath -m "${2:?--key needs the secret key file}"); shift 2 ;;
        --out) out=$(realpath -m "${2:?--out needs the repository folder}"); shift 2 ;;
        --suite) suite=${2:?--suite needs a name}; shift 2 ;;
        -*) fail "unknown option $1" ;;
        *) debs+=("$(realpath -m "$1")"); shift ;;
    esac
done
passphrase_file=${QUESTBOX_SIGNING_PASSPHRASE_FILE:+$(realpath -m "$QUESTBOX_SIGNING_PASSPHRASE_FILE")}
cd "$(dirname "$0")/.."
source scripts/setup.sh
install_missing_packages apt-utils gnupg gpgv dpkg-dev
[[ $suite =~ ^[a-z][a-z0-9-]{0,31}$ ]] || fail "--suite '$suite': lower-case letters, digits and '-' only"

gnupg_home=$(mktemp -d /tmp/questbox-gpg.XXXXXX)
cleanup() { gpgconf --homedir "$gnupg_home" --kill gpg-agent 2>/dev/null || true; rm -rf "$gnupg_home"; }
trap cleanup EXIT
gpg_batch() { gpg --homedir "$gnupg_home" --batch --quiet --no-tty "$@"; }

if [[ $mode == new-key ]]; then
    [[ -n $out ]] || fail "--new-key needs a folder"
    [[ ! -e $out/questbox-signing.key ]] || fail "$out/questbox-signing.key exists: a new key would lock out every box that trusts the old one"
    mkdir -p "$out"
    gpg_batch --pinentry-mode loopback --passphrase '' \
        --quick-generate-key "TimeQuest Box updates" ed25519 sign never
    fingerprint=$(gpg_batch --list-secret-keys --with-colons | awk -F: '$1 == "fpr" { print $10; exit }')
    (umask 077 && gpg_batch --pinentry-mode loopback --passphrase '' --armor --export-secret-keys "$fingerprint" > "$out/questbox-signing.key")
    gpg_batch --export "$fingerprint" > "$out/questbox-archive-keyring.pgp"
    echo "apt-repo: new signing key $fingerprint: $out/questbox-signing.key (secret), $out/questbox-archive-keyring.pgp (for the package)" >&2
    exit 0
fi

[[ -n $key ]] || fail "--key: the secret signing key is needed (scripts/apt-repo.sh --new-key makes one)"
[[ -n $out ]] || fail "--out: the repository's folder is needed"
((${#debs[@]})) || fail "no package given"
[[ -f $key && ! -L $key ]] || fail "--key $key: not a regular file"
gpg_batch --import "$key" 2>/dev/null || fail "--key $key: not an OpenPGP secret key gpg can read"
fingerprint=$(gpg_batch --list-secret-keys --with-colons | awk -F: '$1 == "fpr" { print $10; exit }')
[[ -n $fingerprint ]] || fail "--key $key: holds no secret key"
sign_options=(--pinentry-mode loopback --local-user "$fingerprint" --digest-algo SHA512)
if [[ -n $passphrase_file ]]; then
    sign_options+=(--passphrase-file "$passphrase_file")
else
    sign_options+=(--passphrase '')
fi

# Each package: a regular .deb whose fields make a safe file name, put into the pool. A
# version once published never changes its bytes (a box that fetched it would see another
# file under the same name).
mkdir -p "$out/pool/main"
keyrings=()
for deb in "${debs[@]}"; do
    [[ -f $deb && ! -L $deb ]] || fail "$deb: not a regular file"
    fields=$(dpkg-deb -f "$deb" Package Version Architecture 2>/dev/null) || fail "$deb: not a Debian package"
    package=$(sed -n 's/^Package: //p' <<< "$fields")
    version=$(sed -n 's/^Version: //p' <<< "$fields")
    arch=$(sed -n 's/^Architecture: //p' <<< "$fields")
    [[ $package =~ ^[a-z0-9][a-z0-9+.-]{1,63}$ ]] || fail "$deb: Package '$package' is not a Debian package name"
    [[ $version =~ ^[A-Za-z0-9.+~-]{1,64}$ ]] || fail "$deb: Version '$version' has characters a file name in the pool cannot"
    [[ $arch =~ ^[a-z0-9-]{1,16}$ ]] || fail "$deb: Architecture '$arch' is not an architecture"
    pooled=$out/pool/main/${package:0:1}/$package/${package}_${version}_${arch}.deb
    if [[ -e $pooled ]]; then
        cmp -s "$deb" "$pooled" || fail "$deb: $package $version ($arch) is published already with other contents; give the new build a new version"
    else
        mkdir -p "$(dirname "$pooled")"
        cp "$deb" "$pooled.partial" && mv "$pooled.partial" "$pooled"
    fi
    unpacked=$gnupg_home/unpacked
    rm -rf "$unpacked" && mkdir "$unpacked"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$unpacked" "./$keyring_in_package" 2>/dev/null || true
    if [[ -f $unpacked/$keyring_in_package ]]; then
        keyrings+=("$gnupg_home/keyring-${#keyrings[@]}.pgp")
        cp "$unpacked/$keyring_in_package" "${keyrings[-1]}"
    fi
done

# The index of every architecture the pool holds, then the Release that signs their hashes.
dists=$out/dists/$suite
rm -rf "$dists.new"
architectures=()
for arch in $(find "$out/pool" -name '*.deb' | sed -n 's/.*_\([a-z0-9-]*\)\.deb$/\1/p' | sort -u); do
    architectures+=("$arch")
    index=$dists.new/main/binary-$arch
    mkdir -p "$index"
    (cd "$out" && apt-ftparchive --arch "$arch" packages pool) > "$index/Packages"
    gzip -9n -k "$index/Packages"
done
apt-ftparchive \
    -o APT::FTPArchive::Release::Origin="TimeQuest Box" \
    -o APT::FTPArchive::Release::Label="TimeQuest Box" \
    -o APT::FTPArchive::Release::Suite="$suite" \
    -o APT::FTPArchive::Release::Codename="$suite" \
    -o APT::FTPArchive::Release::Architectures="${architectures[*]}" \
    -o APT::FTPArchive::Release::Components=main \
    -o APT::FTPArchive::Release::Description="TimeQuest Box: the box's own software" \
    release "$dists.new" > "$gnupg_home/Release"
mv "$gnupg_home/Release" "$dists.new/Release"
gpg_batch "${sign_options[@]}" --clearsign -o "$dists.new/InRelease" "$dists.new/Release" \
    || fail "signing with $key failed (a passphrase? \$QUESTBOX_SIGNING_PASSPHRASE_FILE)"
gpg_batch "${sign_options[@]}" --armor --detach-sign -o "$dists.new/Release.gpg" "$dists.new/Release"

# As a box would check it: the signature against the public key, and against the keyring each
# package installs (a package built with another key would refuse its own repository).
gpg_batch --export "$fingerprint" > "$gnupg_home/public.pgp"
for keyring in "$gnupg_home/public.pgp" "${keyrings[@]}"; do
    if ! gpgv --keyring "$keyring" "$dists.new/InRelease" 2>/dev/null \
        || ! gpgv --keyring "$keyring" "$dists.new/Release.gpg" "$dists.new/Release" 2>/dev/null; then
        [[ $keyring == "$gnupg_home/public.pgp" ]] && fail "the signature made with $key does not verify"
        fail "a package's keyring ($keyring_in_package) does not verify this key's signature: that package was built for another key"
    fi
done
# The new index replaces the old one in one step for a web host serving the folder.
rm -rf "$dists.old"
[[ ! -d $dists ]] || mv "$dists" "$dists.old"
mv "$dists.new" "$dists"
rm -rf "$dists.old"
cp "$gnupg_home/public.pgp" "$out/questbox-archive-keyring.pgp"
echo "apt-repo: $out: suite $suite (${architectures[*]}), signed by $fingerprint" >&2
