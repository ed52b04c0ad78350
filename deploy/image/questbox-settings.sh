# TimeQuest Box SD-card image: the settings a family gives before the box starts, applied one
# way whichever door they came through (sourced, POSIX sh): the boot partition's own files
# (questbox-bootfiles) or Raspberry Pi Imager's firstrun.sh, which calls imager_custom and
# userconf (#69). Each function checks its input, does the thing or refuses it, and says so in
# one line (the journal and the console).

settings_say() { echo "${settings_who:-questbox-settings}: $*"; }

# A zone is a file under /usr/share/zoneinfo, named without a way out of it.
settings_timezone() {  # ZONE
    case "$1" in *..*|/*|"") zone= ;; *) zone=$1 ;; esac
    if [ -n "$zone" ] && [ -f "/usr/share/zoneinfo/$zone" ] && printf '%s' "$zone" | grep -Eq '^[A-Za-z0-9_+/-]{1,64}$'; then
        ln -sf "/usr/share/zoneinfo/$zone" /etc/localtime && echo "$zone" > /etc/timezone && settings_say "time zone $zone"
    else
        settings_say "'$1' is not a time zone; the box stays on $(cat /etc/timezone 2>/dev/null || echo UTC)"
        return 1
    fi
}

# A user who may log in and use sudo, with a crypted password (openssl passwd -6, or yescrypt
# as Imager makes it). SSH keys given before the user existed (imager_custom enable_ssh comes
# first in firstrun.sh) are theirs now.
settings_pending_keys=/var/lib/questbox-image/pending-ssh-keys
settings_user() {  # NAME HASH
    if ! printf '%s' "$1" | grep -Eq '^[a-z][a-z0-9_-]{0,31}$' || [ "$1" = root ] || [ -z "$2" ] \
        || printf '%s' "$2" | grep -q '[[:space:]:]'; then
        settings_say "a user needs a name (a-z, 0-9, _ and -) and a crypted password; no user made"
        return 1
    fi
    if id "$1" >/dev/null 2>&1; then
        usermod -p "$2" "$1" && settings_say "password of $1 set"
    else
        useradd -m -s /bin/bash -G sudo -p "$2" "$1" && settings_say "user $1 made (sudo)"
    fi
    if [ -s "$settings_pending_keys" ]; then
        settings_ssh_keys "$1" < "$settings_pending_keys" && rm -f "$settings_pending_keys"
    fi
}

# Public keys (one per line on stdin) for USER's ~/.ssh/authorized_keys; lines that are not a
# key are left out.
settings_ssh_keys() {  # USER
    home=$(getent passwd "$1" | cut -d: -f6)
    [ -n "$home" ] && [ -d "$home" ] || { settings_say "no home for $1; SSH keys not installed"; return 1; }
    install -d -o "$1" -g "$1" -m 700 "$home/.ssh"
    grep -E '^(ssh-(ed25519|rsa|dss)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) [A-Za-z0-9+/=]+( [^[:cntrl:]]*)?$' \
        >> "$home/.ssh/authorized_keys"
    chown "$1:$1" "$home/.ssh/authorized_keys" && chmod 600 "$home/.ssh/authorized_keys"
    settings_say "$(wc -l < "$home/.ssh/authorized_keys") SSH key(s) for $1"
}

# SSH on: host keys made here, on this box, the first time.
settings_ssh_on() {
    ssh-keygen -A >/dev/null
    systemctl enable ssh.service >/dev/null 2>&1
    systemctl start --no-block ssh.service 2>/dev/null
    if getent group sudo | cut -d: -f4 | grep -q .; then settings_say "SSH turned on"
    else settings_say "SSH turned on, but nobody may log in yet: give a user (userconf.txt, or Imager's user)"; fi
}

# The Wi-Fi: a wpa_supplicant configuration (from stdin) for wlan0, readable by root alone.
settings_wifi() {  # FROM (where it came from, for the line said)
    umask 077
    mkdir -p /etc/wpa_supplicant
    cat > /etc/wpa_supplicant/wpa_supplicant-wlan0.conf.new && chmod 600 /etc/wpa_supplicant/wpa_supplicant-wlan0.conf.new \
        && mv /etc/wpa_supplicant/wpa_supplicant-wlan0.conf.new /etc/wpa_supplicant/wpa_supplicant-wlan0.conf
    command -v rfkill >/dev/null && rfkill unblock wifi 2>/dev/null
    systemctl enable wpa_supplicant@wlan0.service >/dev/null 2>&1
    systemctl restart --no-block wpa_supplicant@wlan0.service 2>/dev/null
    settings_say "Wi-Fi taken from $1 (wlan0)"
}

# The box's network name (NAME.local): one DNS label.
settings_hostname() {  # NAME
    if ! printf '%s' "$1" | grep -Eq '^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$'; then
        settings_say "'$1' is not a host name (letters, digits and -, up to 63); the box stays $(cat /etc/hostname)"
        return 1
    fi
    echo "$1" > /etc/hostname
    sed -i "s/^127\.0\.1\.1[[:space:]].*/127.0.1.1\t$1/" /etc/hosts
    grep -q '^127\.0\.1\.1' /etc/hosts || printf '127.0.1.1\t%s\n' "$1" >> /etc/hosts
    hostname "$1" 2>/dev/null
    settings_say "host name $1 ($1.local)"
}
