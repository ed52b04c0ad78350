#!/usr/bin/env python3
"""Plain PBM frames (the box's screen pictures) as PNGs that look like the OLED: each pixel a
square of light on black with a thin gap, so a person sees what the player sees.
    scripts/frames-png.py OUT_DIR FRAME.pbm...
Standard library only (zlib for the PNG)."""
import os
import struct
import sys
import zlib

SCALE = 4          # one screen pixel → 4×4 image pixels (3×3 lit, a dark line between)
LIT = (170, 225, 255)
DARK = (8, 10, 16)
BORDER = 8


def read_pbm(path):
    tokens = []
    with open(path, encoding="ascii") as f:
        if os.fstat(f.fileno()).st_size > 1 << 20:
            raise ValueError(f"{path}: larger than 1 MiB")
        for line in f:
            tokens += line.split("#", 1)[0].split()
    if len(tokens) < 3 or tokens[0] != "P1":
        raise ValueError(f"{path}: not a plain PBM (P1)")
    w, h = int(tokens[1]), int(tokens[2])
    if not (1 <= w <= 4096 and 1 <= h <= 4096):
        raise ValueError(f"{path}: size {w}x{h} out of range")
    bits = "".join(tokens[3:])
    if len(bits) != w * h or set(bits) - {"0", "1"}:
        raise ValueError(f"{path}: {len(bits)} pixels for {w}x{h}")
    return w, h, [bits[y * w:(y + 1) * w] for y in range(h)]


def png(w, h, rows):
    width, height = w * SCALE + 2 * BORDER, h * SCALE + 2 * BORDER
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        sy = y - BORDER
        for x in range(width):
            sx = x - BORDER
            on = (0 <= sx < w * SCALE and 0 <= sy < h * SCALE and sx % SCALE != SCALE - 1
                  and sy % SCALE != SCALE - 1 and rows[sy // SCALE][sx // SCALE] == "1")
            raw += bytes(LIT if on else DARK)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: frames-png.py OUT_DIR FRAME.pbm...")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        try:
            w, h, rows = read_pbm(path)
        except (OSError, ValueError) as e:
            sys.exit(f"frames-png: {e}")
        name = os.path.splitext(os.path.basename(path))[0] + ".png"
        with open(os.path.join(out, name), "wb") as f:
            f.write(png(w, h, rows))
        print(os.path.join(out, name))


main()
