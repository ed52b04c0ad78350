#!/usr/bin/env bash
# #35: the eSpeak NG voices Debian ships for English, compared on the box's own phrases at the
# same rate: how long they take, how much of their energy lies where consonants are told
# apart (2–5 kHz), and how even their loudness is. Prints a Markdown table (docs/sound.md
# shows the latest). Not part of CI: about a minute.   scripts/voice-compare.sh [QUESTBOX]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
install_missing_packages espeak-ng-data python3-numpy
qb=${1:-}
if [[ -z $qb ]]; then
    swift build --product questbox >&2
    qb="$(swift build --show-bin-path)/questbox"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
voices=(en-us en-us+f3 en-us+m3 en en-gb-x-rp en-us-nyc en-029 en-gb-scotland)
phrases=(
    "Tidy Desk. Your guess: two minutes thirty."
    "Your guess: one minute forty-five."
    "Go!"
    "Close! Getting dialed in. It took three minutes ten. Your guess was forty seconds short."
    "Discovery! Tricky one to feel. It took six minutes. Your guess was three minutes and five seconds long."
    "Morning Quest done! Plus forty XP. Level three! Seven-day streak!"
    "Time for Morning Quest."
)
for v in "${voices[@]}"; do
    for i in "${!phrases[@]}"; do
        "$qb" voice say "${phrases[$i]}" --voice "$v" --rate 150 --to "$out/$v.$i.wav" >/dev/null
    done
done
python3 - "$out" "${#phrases[@]}" "${voices[@]}" <<'PY'
import sys, wave
import numpy as np
folder, count, voices = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def samples(path):
    with wave.open(path) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768, w.getframerate()
print("| voice | the 7 phrases take (s) | energy at 2–5 kHz (% of 0.1–8 kHz) | loudness spread, 10th–90th percentile of voiced 20 ms frames (dB) |")
print("|---|---|---|---|")
for v in voices:
    total, band, whole, levels = 0.0, 0.0, 0.0, []
    for i in range(count):
        x, rate = samples(f"{folder}/{v}.{i}.wav")
        total += len(x) / rate
        spectrum = np.abs(np.fft.rfft(x)) ** 2
        freqs = np.fft.rfftfreq(len(x), 1 / rate)
        band += spectrum[(freqs >= 2000) & (freqs < 5000)].sum()
        whole += spectrum[(freqs >= 100) & (freqs < 8000)].sum()
        frame = rate // 50
        rms = np.sqrt(np.array([np.mean(x[k:k + frame] ** 2) for k in range(0, len(x) - frame, frame)]))
        levels += list(20 * np.log10(rms[rms > 0.01]))
    spread = np.percentile(levels, 90) - np.percentile(levels, 10)
    print(f"| `{v}` | {total:.1f} | {100 * band / whole:.1f} | {spread:.1f} |")
PY
