#!/usr/bin/env python3
"""Inside the VM: what the box's screen showed, from the kernel's side (#14).

  display.py oled TRACE FRAMES_DIR OUT_DIR NAME…   the smbus:smbus_write trace of an i2c-stub
      bus decoded as an SSD1306 would take it (its own decoder, not the box's), one picture per
      burst of writes (the bursts are `questbox display test`'s screens, 0.3 s apart), each
      compared pixel for pixel with FRAMES_DIR/NAME.pbm and written to OUT_DIR/oled-NAME.pbm.
  display.py live TRACE STEPS.json OUT_DIR   the running box's trace (on CLOCK_MONOTONIC) against
      display_live.py's steps: the glass at each step, each estimate press's burst and time.
  display.py fb FBDEV SYSFS EXPECTED.pbm OUT.pbm   the framebuffer read back from the device,
      its scaled, centred picture sampled back to 128×64 and compared.
Prints one PASS/FAIL line per check and the bytes each screen change cost; exits 1 on a FAIL.
"""
import json
import re
import sys

failures = 0


def check(ok, text):
    global failures
    print(("ok    " if ok else "FAIL  ") + text)
    failures += 0 if ok else 1


def read_pbm(path):
    tokens = []
    for line in open(path):
        tokens += line.split("#")[0].split()
    assert tokens[0] == "P1"
    w, h = int(tokens[1]), int(tokens[2])
    digits = "".join(tokens[3:])
    return w, h, [[digits[y * w + x] == "1" for x in range(w)] for y in range(h)]


def write_pbm(path, rows):
    with open(path, "w") as f:
        f.write(f"P1\n{len(rows[0])} {len(rows)}\n")
        for row in rows:
            f.write(" ".join("1" if p else "0" for p in row) + "\n")


def differing(a, b):
    if len(a) != len(b) or len(a[0]) != len(b[0]):
        return -1
    return sum(pa != pb for ra, rb in zip(a, b) for pa, pb in zip(ra, rb))


LINE = re.compile(r"\s([0-9.]+): smbus_write: i2c-(\d+) a=([0-9a-f]+) f=[0-9a-f]+ c=([0-9a-f]+) (\w+) l=(\d+) \[([0-9a-f-]*)\]")
PARAMETERS = {0x81: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1, 0x8D: 1, 0x20: 1, 0x21: 2, 0x22: 2}


class SSD1306:
    def __init__(self):
        self.memory = [[0] * 128 for _ in range(8)]
        self.page = self.column = 0
        self.pending = None
        self.on = False
        self.contrast = 0x7F
        self.mux = 64
        self.seg_remap = self.com_reversed = False

    def command(self, b):
        if self.pending:
            cmd, left = self.pending
            if cmd == 0x81:
                self.contrast = b
            if cmd == 0xA8:
                self.mux = (b & 0x3F) + 1
            self.pending = (cmd, left - 1) if left > 1 else None
        elif b <= 0x0F:
            self.column = (self.column & 0xF0) | b
        elif b <= 0x1F:
            self.column = (((b & 0x0F) << 4) | (self.column & 0x0F)) % 128
        elif 0xB0 <= b <= 0xB7:
            self.page = b & 7
        elif b in (0xAE, 0xAF):
            self.on = b == 0xAF
        elif b in (0xA0, 0xA1):
            self.seg_remap = b == 0xA1
        elif b in (0xC0, 0xC8):
            self.com_reversed = b == 0xC8
        elif b in PARAMETERS:
            self.pending = (b, PARAMETERS[b])

    def data(self, b):
        self.memory[self.page][self.column] = b
        self.column = (self.column + 1) % 128

    def frame(self):
        rows = [[False] * 128 for _ in range(self.mux)]
        for y in range(self.mux):
            for x in range(128):
                if self.memory[y // 8][x] >> (y % 8) & 1:
                    rows[y if self.com_reversed else self.mux - 1 - y][x if self.seg_remap else 127 - x] = True
        return rows


def parse_writes(trace):
    """Every traced SMBus write: (time s, address, control, protocol, length, payload)."""
    writes = []
    for line in open(trace):
        m = LINE.search(line)
        if m:
            t, bus, addr, control, protocol, length, data = m.groups()
            payload = [int(x, 16) for x in data.split("-")] if data else []
            writes.append((float(t), int(addr, 16), int(control, 16), protocol, int(length), payload))
    return writes


def apply(chip, writes):
    """Feeds the writes to the model; returns the bytes they put on a real wire (address,
    control and payload bytes; a block write's count byte is not sent on I2C)."""
    wire = 0
    for _, _, control, _, _, data in writes:
        if control == 0:
            chip.command(data[0])
            wire += 3
        else:
            for b in data[1:]:
                chip.data(b)
            wire += 2 + data[0]
    return wire


def at_400k(wire, writes):
    return (wire * 9 + writes * 2) / 400


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def oled(trace, frames_dir, out_dir, names):
    writes = parse_writes(trace)
    check(len(writes) > 0, f"{len(writes)} SMBus writes traced")
    shapes = all(
        a == 0x3C and ((c == 0 and p == "BYTE_DATA" and n == 1) or (c == 0x40 and p == "I2C_BLOCK_DATA" and 1 <= d[0] <= 32 and n == d[0] + 1))
        for _, a, c, p, n, d in writes)
    check(shapes, "every write goes to 0x3c: a command as byte-data with control 0x00, pixels as 1…32-byte I2C blocks with control 0x40")
    bursts = []
    for w in writes:
        if not bursts or w[0] - bursts[-1][-1][0] > 0.15:
            bursts.append([])
        bursts[-1].append(w)
    check(len(bursts) == len(names), f"{len(bursts)} bursts of writes for {len(names)} screens")
    chip = SSD1306()
    costs = []
    for name, burst in zip(names, bursts):
        wire = apply(chip, burst)
        span_ms = (burst[-1][0] - burst[0][0]) * 1000
        clocks = wire * 9 + len(burst) * 2
        costs.append(wire)
        print(f"      {name}: {len(burst)} writes, {wire} bytes on the wire = {clocks / 400:.1f} ms at 400 kHz, "
              f"{clocks / 100:.1f} ms at 100 kHz; {span_ms:.1f} ms from first to last write on i2c-stub")
        decoded = chip.frame()
        write_pbm(f"{out_dir}/oled-{name}.pbm", decoded)
        _, _, expected = read_pbm(f"{frames_dir}/{name}.pbm")
        diff = differing(decoded, expected)
        check(diff == 0 and chip.on, f"{name}: the glass shows the committed picture ({diff} pixels differ), lit")
    if "estimating-step" in names and len(costs) == len(names):
        step = costs[names.index("estimating-step")]
        check(step * 9 / 400_000 <= 0.010 and step * 4 < costs[0],
              f"an estimate step sends {step} bytes (≤ 10 ms at 400 kHz, under a quarter of the first frame's {costs[0]})")


def framebuffer(device, sysfs, expected_path, out_path):
    bpp = int(open(f"{sysfs}/bits_per_pixel").read())
    width, height = (int(v) for v in open(f"{sysfs}/virtual_size").read().split(","))
    stride = int(open(f"{sysfs}/stride").read())
    with open(device, "rb") as f:
        memory = f.read(stride * height)
    ew, eh, expected = read_pbm(expected_path)
    scale = max(1, min(width // ew, height // eh))
    left, top = (width - ew * scale) // 2, (height - eh * scale) // 2
    size = bpp // 8

    def lit(x, y):
        return all(b == 0xFF for b in memory[y * stride + x * size:y * stride + x * size + size])

    def dark(x, y):
        return all(b == 0 for b in memory[y * stride + x * size:y * stride + x * size + size])

    decoded = [[lit(left + x * scale + scale // 2, top + y * scale + scale // 2) for x in range(ew)] for y in range(eh)]
    write_pbm(out_path, decoded)
    diff = differing(decoded, expected)
    check(diff == 0, f"{device} ({width}×{height}, {bpp} bpp) read back shows the committed picture at {scale}× ({diff} pixels differ)")
    # Whole blocks, nothing half-drawn: each box pixel is a scale×scale square of one value.
    solid = all(all((lit if expected[y][x] else dark)(left + x * scale + i, top + y * scale + j)
                    for i in range(scale) for j in range(scale)) for y in range(eh) for x in range(ew))
    border = all(dark(x, y) for y in list(range(top)) + list(range(top + eh * scale, height)) for x in range(0, width, 7))
    check(solid and border, "each pixel is a solid square, the border around the picture is dark")
    if not (solid and border):
        odd = [(x, y) for y in range(height) for x in range(width)
               if not (lit(x, y) or dark(x, y)) or (lit(x, y) != (left <= x < left + ew * scale and top <= y < top + eh * scale
                                                               and expected[(y - top) // scale][(x - left) // scale]))]
        print(f"      {len(odd)} screen pixels not as expected, the first: {odd[:8]}")


def live(trace, steps_path, out_dir):
    """The running box (display_live.py's steps): at each settled step the glass equals the
    frame `questbox display render` drew from the screen `watch` reported; each estimate
    press is followed by one small burst; its time from the press to the last byte."""
    writes = parse_writes(trace)
    run = json.load(open(steps_path))
    check(len(writes) > 0 and all(w[1] == 0x3C for w in writes), f"{len(writes)} SMBus writes traced, all to 0x3c")
    chip, done = SSD1306(), 0
    first_burst = []
    for w in writes:
        if first_burst and w[0] - first_burst[-1][0] > 0.15:
            break
        first_burst.append(w)
    for step in run["steps"]:
        # The glass just before the next press: a drawing thread the host starved is late,
        # never wrong.
        upto = next((i for i, w in enumerate(writes) if w[0] > step["until"]), len(writes))
        apply(chip, writes[done:upto])
        done = upto
        decoded = chip.frame()
        write_pbm(f"{out_dir}/live-{step['name']}.pbm", decoded)
        _, _, expected = read_pbm(f"{out_dir}/live-{step['name']}.expected.pbm")
        diff = differing(decoded, expected)
        check(diff == 0 and chip.on, f"running box, {step['name']} ({step['kind']}): the glass shows the reported screen ({diff} pixels differ), lit")
    # Bursts: a screen's writes come back to back (about 1 ms on i2c-stub); 0.4 s between presses.
    bursts = []
    for w in writes:
        if not bursts or w[0] - bursts[-1][-1][0] > 0.05:
            bursts.append([])
        bursts[-1].append(w)
    presses = run["estimate_presses"]
    latencies, costs, late = [], [], 0
    for p in presses:
        burst = next((b for b in bursts if b[0][0] > p), None)
        if burst is None or burst[-1][0] - p > 2.0:
            late += 1
            continue
        latencies.append((burst[-1][0] - p) * 1000)
        costs.append((apply(SSD1306(), burst), len(burst)))
    check(late == 0, f"each of the {len(presses)} estimate presses was drawn within 2 s ({late} not)")
    if latencies:
        worst = max(costs, key=lambda c: at_400k(*c))
        ms = at_400k(*worst)
        print(f"      estimate step, press → last byte on i2c-stub: p50 {percentile(latencies, 50):.1f} ms, "
              f"p99 {percentile(latencies, 99):.1f} ms, max {max(latencies):.1f} ms ({len(latencies)} presses)")
        print(f"      estimate step on a real bus: {min(c[0] for c in costs)}–{worst[0]} bytes, at most "
              f"{ms:.1f} ms at 400 kHz, {ms * 4:.1f} ms at 100 kHz")
        check(ms <= 10, f"every estimate step fits 10 ms at 400 kHz ({worst[0]} bytes at most)")
    full = apply(SSD1306(), first_burst)
    print(f"      the box's first frame: {len(first_burst)} writes, {full} bytes = {at_400k(full, len(first_burst)):.1f} ms at 400 kHz, "
          f"{at_400k(full, len(first_burst)) * 4:.1f} ms at 100 kHz; "
          f"{(first_burst[-1][0] - first_burst[0][0]) * 1000:.1f} ms first to last write on i2c-stub")
    check(at_400k(full, len(first_burst)) <= 40, "a full frame with its set-up fits 40 ms at 400 kHz")
    check(run["static_switches"] == 0, f"the screen thread woke {run['static_switches']} times in 3 s of a static screen (0 expected)")


if __name__ == "__main__":
    if sys.argv[1] == "oled":
        oled(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif sys.argv[1] == "live":
        live(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        framebuffer(*sys.argv[2:6])
    sys.exit(1 if failures else 0)
