#!/usr/bin/env python3
"""A man page (roff, section 1) from a program's own help: `PROGRAM --experimental-dump-help`
(swift-argument-parser's JSON of every command, option and abstract), so the page says what
--help says and cannot drift from it.
    scripts/manpage.py PROGRAM NAME VERSION > NAME.1
$QUESTBOX_RUN_WITH, when set, is a command the program runs under (an arm64 program on an
amd64 machine: "qemu-aarch64-static -L SYSROOT").
"""
import json
import os
import shlex
import subprocess
import sys


def roff(text):
    """Text as roff: backslashes and leading dots/quotes made literal."""
    text = (text or "").replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line[:1] in (".", "'") else line for line in text.split("\n"))


def option_name(arg):
    names = []
    for n in arg.get("names", []):
        names.append(("--" if n["kind"] == "long" else "-") + n["name"])
    if not names:  # a positional argument
        return "<" + arg.get("valueName", "value") + ">"
    if arg.get("kind") == "option":
        names[-1] += " <" + arg.get("valueName", "value") + ">"
    return ", ".join(names)


def command_section(cmd, path, out):
    name = " ".join(path)
    args = [a for a in cmd.get("arguments", []) if a.get("shouldDisplay", True)]
    out.append(".SS " + roff(name))
    if cmd.get("abstract"):
        out.append(roff(cmd["abstract"]))
    if cmd.get("discussion"):
        out.append(".PP")
        out.append(roff(cmd["discussion"]))
    for arg in args:
        names = {n["name"] for n in arg.get("names", [])}
        if "help" in names or ("version" in names and len(path) > 1):
            continue  # every command has --help; --version is the program's
        out.append(".TP")
        out.append(".B " + roff(option_name(arg)))
        out.append(roff(arg.get("abstract", "")) or ".")
    for sub in cmd.get("subcommands", []):
        if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
            command_section(sub, path + [sub["commandName"]], out)


def main():
    program, name, version = sys.argv[1:4]
    runner = shlex.split(os.environ.get("QUESTBOX_RUN_WITH", ""))
    dump = subprocess.run(runner + [program, "--experimental-dump-help"], check=True, capture_output=True, text=True).stdout
    root = json.loads(dump)["command"]
    has_commands = any(c.get("shouldDisplay", True) and c["commandName"] != "help" for c in root.get("subcommands", []))
    out = [
        '.TH "%s" 1 "" "%s" "TimeQuest Box"' % (name.upper(), roff(version)),
        ".SH NAME",
        "%s \\- %s" % (roff(name), roff(root.get("abstract", ""))),
        ".SH SYNOPSIS",
        ".B " + roff(name),
        "[\\fIcommand\\fR] [\\fIoptions\\fR]" if has_commands else "[\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        roff(root.get("abstract", "")),
        ".SH COMMANDS" if has_commands else ".SH OPTIONS",
    ]
    command_section(root, [name], out)
    out += [".SH FILES",
            "/etc/default/questbox (the board), /var/lib/questbox (the store and its backups),",
            "/usr/share/questbox (board profiles, sounds, the web app's pages)."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
