"""What the box played, as captured by hil-capture from the loopback card, on the same
CLOCK_MONOTONIC time line as the presses. Pure Python (the guest has no numpy)."""
import array, os, re, struct

RATE = 48000


def logged_underruns(run_log):
    """The length in ms of each underrun the box logged (its audio thread was late and the
    card played silence), in the order logged."""
    with open(run_log) as f:
        return [float(ms) for ms in re.findall(r"ms=([\d.]+) \[Audio\] sound underrun: the card played silence", f.read())]


class Segment:
    """Frames recorded without a break: frame k of the file sounded at origin + (k - first) / RATE,
    until end_time. `origin` and `end_time` are set once all reads are in (Capture)."""
    def __init__(self, first):
        self.first, self.end, self.bounds = first, first, []
        self.origin = self.end_time = None


class Capture:
    def __init__(self, raw_path, times_path):
        samples = array.array("h")
        with open(raw_path, "rb") as f:
            samples.frombytes(f.read())
        self.left = samples[0::2]
        # Each segment's first frame's time is the earliest bound over its reads (a late
        # wake-up only makes a read's estimate later, never earlier). An overrun ("gap")
        # loses frames, so the next segment gets its own time base.
        self.segments = [Segment(0)]
        for line in open(times_path):
            fields = line.split()
            if fields[0] == "gap":
                self.segments.append(Segment(int(fields[1])))
                continue
            t_ns, read, waiting = map(int, fields)
            seg = self.segments[-1]
            seg.end = read
            seg.bounds.append(t_ns / 1e9 - (read - seg.first + waiting) / RATE)
        self.segments = [seg for seg in self.segments if seg.bounds]
        if not self.segments:
            raise SystemExit("the capture recorded nothing")
        for seg in self.segments:
            seg.origin = min(seg.bounds)
            seg.end_time = seg.origin + (seg.end - seg.first) / RATE

    def _segment_of(self, frame):
        return next((seg for seg in reversed(self.segments) if seg.first <= frame), self.segments[0])

    def time_of(self, frame):
        seg = self._segment_of(frame)
        return seg.origin + (frame - seg.first) / RATE

    def frame_at(self, t):
        """The frame that sounded at time t; in a gap, the first frame after it."""
        for seg in self.segments:
            if t < seg.end_time:
                return seg.first + max(0, int((t - seg.origin) * RATE))
        return self.segments[-1].end

    def gaps_within(self, t, within):
        """The frames lost to overruns between t and t + within, as (from, to) times."""
        return [(a.end_time, b.origin) for a, b in zip(self.segments, self.segments[1:])
                if a.end_time < t + within and b.origin > t]

    def first_sound_after(self, t, within=1.0):
        """The first non-zero frame at or after time t (silence is exact zeros), or None."""
        start, end = self.frame_at(t), min(len(self.left), self.frame_at(t + within))
        for k in range(start, end):
            if self.left[k] != 0:
                return k
        return None

    def silent_before(self, t, span):
        """Whether the span seconds before time t were recorded, and silent."""
        start, end = self.frame_at(t - span), self.frame_at(t)
        return not self.gaps_within(t - span, span) and end - start >= int(span * RATE) - 1 \
            and not any(self.left[start:end])

    def last_sound_before(self, frame, limit):
        """The last non-zero frame in [frame, limit)."""
        for k in range(min(limit, len(self.left)) - 1, frame - 1, -1):
            if self.left[k] != 0:
                return k
        return None


def wav_samples(path):
    """The mono 16-bit samples of one of the box's WAV files."""
    data = open(path, "rb").read()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", f"{path}: not a WAV file"
    pos = 12
    while pos + 8 <= len(data):
        tag, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        if tag == b"data":
            out = array.array("h")
            out.frombytes(data[pos + 8:pos + 8 + size])
            return out
        pos += 8 + size + (size & 1)
    raise SystemExit(f"{path}: no data chunk")


def fit(signal, clip, at, length):
    """Least-squares gain of `clip` placed at frame `at` of `signal` over `length` frames,
    and the largest remaining difference."""
    n = min(length, len(clip), len(signal) - at)
    sw = sum(signal[at + i] * clip[i] for i in range(n))
    ww = sum(clip[i] * clip[i] for i in range(n)) or 1
    gain = sw / ww
    worst = max(abs(signal[at + i] - gain * clip[i]) for i in range(n))
    return gain, worst


def locate(signal, clip, start, end, window):
    """The placement of `clip` in [start, end] that best explains `signal` over `window`
    frames: (frame, gain, largest difference)."""
    best = None
    for at in range(max(0, start), end + 1):
        gain, worst = fit(signal, clip, at, window)
        if best is None or worst < best[2]:
            best = (at, gain, worst)
    return best


def voice_clips(folder):
    """{words: samples} of every clip the box's voice kept (PhraseCache's files in the data
    folder's voice/: "QBVOICE1", the key's length and text "voice|words", rate, frames, a
    checksum, 16-bit samples)."""
    clips = {}
    if not os.path.isdir(folder):
        return clips
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".clip"):
            continue
        data = open(os.path.join(folder, name), "rb").read()
        if data[:8] != b"QBVOICE1":
            continue
        n = struct.unpack("<I", data[8:12])[0]
        identity = data[12:12 + n].decode()
        rate, frames = struct.unpack("<II", data[12 + n:20 + n])
        samples = array.array("h")
        samples.frombytes(data[28 + n:28 + n + 2 * frames])
        if rate == RATE and len(samples) == frames:
            clips[identity.split("|", 1)[1]] = samples
    return clips


def first_loud(clips, gain):
    """Each clip's first sample loud enough to find it by (above 200 at `gain`), or None."""
    return {w: next((k for k, x in enumerate(c) if abs(round(gain * x)) > 200), None) for w, c in clips.items()}


def words_heard(signal, clips, start, end, gain, tolerance=8, loud=None):
    """The box's voice in signal[start:end]: the kept clips heard there one after another,
    sample for sample (each within `tolerance` of gain × clip), as (words, first frame,
    frames heard); the last may be cut short at `end` or where the voice was cut. Each piece
    is found by its first loud sample, so pieces may be back to back or apart. `loud`: the
    clips' `first_loud` at this gain, when many calls share them (under emulation it is the
    slow part)."""
    if loud is None:
        loud = first_loud(clips, gain)
    heard, at = [], start
    while at < end:
        onset = next((k for k in range(at, end) if abs(signal[k]) > 200), None)
        if onset is None:
            break
        best = None
        for words, clip in clips.items():
            k0 = loud[words]
            if k0 is None or onset - k0 < at:
                continue
            begin = onset - k0
            n = min(len(clip), end - begin, k0 + 480)
            # From the loud sample on first: another clip differs there at once.
            if n > 0 and all(abs(signal[begin + i] - gain * clip[i]) <= tolerance for i in range(min(k0, n), n)) \
                    and all(abs(signal[begin + i] - gain * clip[i]) <= tolerance for i in range(min(k0, n))):
                # The longest stretch that matches: the whole clip, or up to where it was cut.
                length = k0 + 480
                while length < min(len(clip), end - begin) and abs(signal[begin + length] - gain * clip[length]) <= tolerance:
                    length += 1
                if best is None or length > best[2]:
                    best = (words, begin, length)
        if best is None:
            break
        heard.append(best)
        at = best[1] + best[2]
        if best[2] < len(clips[best[0]]):
            break                                          # cut short: the voice stopped there
    return heard
