#!/usr/bin/env python3
"""What Raspberry Pi Imager writes to a card's boot partition for its `systemd` format (#69):
firstrun.sh as its generator writes it (CustomisationGenerator::generateSystemdScript in
rpi-imager's src/customization_generator.cpp, read and written again here line for line for the
settings a family gives: a host name, a user with a password, an SSH key, the Wi-Fi with its
country, a keymap and a time zone) and cmdline.txt with the words Imager appends
(src/downloadthread.cpp). Imager 1.x writes the same two files for any local image.

    imager_firstrun.py OUT_DIR CMDLINE_FILE HOSTNAME USER CRYPTED_PASSWORD SSH_KEY SSID PASSPHRASE COUNTRY TIMEZONE KEYMAP

writes OUT_DIR/firstrun.sh and rewrites CMDLINE_FILE in place.
"""
import hashlib
import os
import sys

IMAGER_CUSTOM = "/usr/lib/raspberrypi-sys-mods/imager_custom"
USERCONF = "/usr/lib/userconf-pi/userconf"
CMDLINE_WORDS = " systemd.run=/boot/firstrun.sh systemd.run_success_action=reboot systemd.unit=kernel-command-line.target"


def shell_quote(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


def wifi_psk(passphrase: str, ssid: str) -> str:
    """Imager's crypted PSK: PBKDF2-HMAC-SHA1, the SSID as salt, 4096 rounds, 32 bytes, hex."""
    return hashlib.pbkdf2_hmac("sha1", passphrase.encode(), ssid.encode(), 4096, 32).hex()


def firstrun(hostname, user, crypted, key, ssid, passphrase, country, timezone, keymap) -> str:
    psk = wifi_psk(passphrase, ssid)
    lines = ["#!/bin/sh", "", "set +e", ""]
    lines += [
        'CURRENT_HOSTNAME=$(cat /etc/hostname | tr -d " \\t\\n\\r")',
        f"if [ -f {IMAGER_CUSTOM} ]; then",
        f"   {IMAGER_CUSTOM} set_hostname {hostname}",
        "else",
        f"   echo {hostname} >/etc/hostname",
        f'   sed -i "s/127.0.1.1.*$CURRENT_HOSTNAME/127.0.1.1\\t{hostname}/g" /etc/hosts',
        "fi",
    ]
    lines += [
        "FIRSTUSER=$(getent passwd 1000 | cut -d: -f1)",
        "FIRSTUSERHOME=$(getent passwd 1000 | cut -d: -f6)",
    ]
    # SSH with a public key: key-only, through imager_custom when the image has it.
    lines += [
        f"if [ -f {IMAGER_CUSTOM} ]; then",
        f"   {IMAGER_CUSTOM} enable_ssh -k {shell_quote(key)}",
        "else",
        '   install -o "$FIRSTUSER" -m 700 -d "$FIRSTUSERHOME/.ssh"',
        "cat > \"$FIRSTUSERHOME/.ssh/authorized_keys\" <<'EOF'",
        key,
        "EOF",
        '   chown "$FIRSTUSER:$FIRSTUSER" "$FIRSTUSERHOME/.ssh/authorized_keys"',
        '   chmod 600 "$FIRSTUSERHOME/.ssh/authorized_keys"',
        "   echo 'PasswordAuthentication no' >>/etc/ssh/sshd_config",
        "   systemctl enable ssh",
        "fi",
    ]
    # The user and password, through userconf when the image has it.
    lines += [
        f"if [ -f {USERCONF} ]; then",
        f"   {USERCONF} {shell_quote(user)} {shell_quote(crypted)}",
        "else",
        f'   echo "$FIRSTUSER:{crypted}" | chpasswd -e',
        f'   if [ "$FIRSTUSER" != "{user}" ]; then',
        f'      usermod -l "{user}" "$FIRSTUSER"',
        f'      usermod -m -d "/home/{user}" "{user}"',
        f'      groupmod -n "{user}" "$FIRSTUSER"',
        '      if grep -q "^autologin-user=" /etc/lightdm/lightdm.conf ; then',
        f'         sed /etc/lightdm/lightdm.conf -i -e "s/^autologin-user=.*/autologin-user={user}/"',
        "      fi",
        "      if [ -f /etc/systemd/system/getty@tty1.service.d/autologin.conf ]; then",
        f'         sed /etc/systemd/system/getty@tty1.service.d/autologin.conf -i -e "s/$FIRSTUSER/{user}/"',
        "      fi",
        "      if [ -f /etc/sudoers.d/010_pi-nopasswd ]; then",
        f'         sed -i "s/^$FIRSTUSER /{user} /" /etc/sudoers.d/010_pi-nopasswd',
        "      fi",
        "   fi",
        "fi",
    ]
    # The Wi-Fi: a shell-safe SSID goes through imager_custom set_wlan.
    script = "\n".join(lines) + "\n"
    script += f"if [ -f {IMAGER_CUSTOM} ] && true; then\n"
    script += f"   {IMAGER_CUSTOM} set_wlan {shell_quote(ssid)} {shell_quote(psk)} {shell_quote(country)}\n"
    script += "else\n"
    script += "cat >/etc/wpa_supplicant/wpa_supplicant.conf <<'WPAEOF'\n"
    script += f"country={country}\n"
    script += "ctrl_interface=DIR=/var/run/wpa_supplicant GROUP=netdev\n"
    script += "ap_scan=1\n\n"
    script += "update_config=1\n"
    script += "network={\n"
    script += f'\tssid="{ssid}"\n'
    script += "\tkey_mgmt=WPA-PSK SAE\n"
    script += f"\tpsk={psk}\n"
    script += "\tieee80211w=1\n"
    script += "}\n"
    script += "WPAEOF\n"
    lines = [
        "   chmod 600 /etc/wpa_supplicant/wpa_supplicant.conf",
        "   rfkill unblock wifi",
        "   for filename in /var/lib/systemd/rfkill/*:wlan ; do",
        "       echo 0 > $filename",
        "   done",
        "fi",
        f"if [ -f {IMAGER_CUSTOM} ]; then",
        f"   {IMAGER_CUSTOM} set_keymap {shell_quote(keymap)}",
        f"   {IMAGER_CUSTOM} set_timezone {shell_quote(timezone)}",
        "else",
        "   rm -f /etc/localtime",
        f'   echo "{timezone}" >/etc/timezone',
        "   dpkg-reconfigure -f noninteractive tzdata",
        "cat >/etc/default/keyboard <<'KBEOF'",
        'XKBMODEL="pc105"',
        f'XKBLAYOUT="{keymap}"',
        'XKBVARIANT=""',
        'XKBOPTIONS=""',
        "",
        "KBEOF",
        "   dpkg-reconfigure -f noninteractive keyboard-configuration",
        "fi",
        "rm -f /boot/firstrun.sh",
        "sed -i 's| systemd.run.*||g' /boot/cmdline.txt",
        "exit 0",
    ]
    return script + "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) != 12:
        sys.exit(__doc__)
    out_dir, cmdline_file, hostname, user, crypted, key, ssid, passphrase, country, timezone, keymap = sys.argv[1:]
    with open(os.path.join(out_dir, "firstrun.sh"), "w", newline="\n") as f:
        f.write(firstrun(hostname, user, crypted, key, ssid, passphrase, country, timezone, keymap))
    with open(cmdline_file, "rb") as f:
        cmdline = f.read().strip()
    with open(cmdline_file, "wb") as f:
        f.write(cmdline + CMDLINE_WORDS.encode())


if __name__ == "__main__":
    main()
