import Audio

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A tiny additive synthesizer: enough for short, soft, distinct effect sounds. Everything is
/// deterministic, so running the recipe again gives the committed files byte for byte.
enum Timbre {
    /// Glassy: fundamental, a quiet octave and a faint inharmonic partial that decays fast.
    case bell
    /// Round: fundamental with a touch of octave.
    case soft
    /// Plucked: harmonics 1…6 at 1/n, the upper ones dying quicker.
    case pluck
    /// Hollow wood: fundamental and fifth-ish partial, very short.
    case wood

    var partials: [(ratio: Double, amplitude: Double, decayScale: Double)] {
        switch self {
        case .bell: [(1, 1, 1), (2, 0.35, 0.6), (2.76, 0.12, 0.35), (5.4, 0.04, 0.2)]
        case .soft: [(1, 1, 1), (2, 0.12, 0.7)]
        case .pluck: (1...6).map { n in (Double(n), 1 / Double(n), 1 / Double(n)) }
        case .wood: [(1, 1, 1), (2.9, 0.3, 0.4), (5.2, 0.08, 0.2)]
        }
    }
}

struct Note {
    var frequency: Double
    var start: Double
    /// Time constant of the exponential decay, seconds.
    var decay: Double
    var amplitude: Double = 1
    var timbre: Timbre = .bell
    /// Ends the note (with a short release) this long after its start; nil rings out.
    var length: Double? = nil
    /// Frequency at the end of `glideTime` (a pitch slide), and vibrato depth in semitones.
    var glideTo: Double? = nil
    var glideTime: Double = 0
    var vibrato: Double = 0
    var attack: Double = 0.004
}

struct SoundDesign {
    var duration: Double
    /// Loudest sample after normalising, dBFS (SPEC §6: at most −1).
    var peakDBFS: Double
    var notes: [Note]

    func render() -> SoundClip {
        let rate = Double(SoundClip.sampleRate)
        let frames = Int((duration * rate).rounded())
        var mix = [Double](repeating: 0, count: frames)
        for note in notes {
            let first = Int((note.start * rate).rounded())
            guard first < frames else { continue }
            var phases = [Double](repeating: 0, count: note.timbre.partials.count)
            for i in first..<frames {
                let t = Double(i - first) / rate
                var f = note.frequency
                if let target = note.glideTo, note.glideTime > 0 {
                    let k = min(t / note.glideTime, 1)
                    let eased = k * k * (3 - 2 * k)
                    f = note.frequency * pow(target / note.frequency, eased)
                }
                if note.vibrato > 0 { f *= pow(2, note.vibrato * sin(2 * .pi * 5.5 * t) / 12) }
                var envelope = min(t / note.attack, 1)
                var sample = 0.0
                for (p, partial) in note.timbre.partials.enumerated() {
                    phases[p] += 2 * .pi * f * partial.ratio / rate
                    if phases[p] > 2 * .pi { phases[p] -= 2 * .pi }
                    sample += partial.amplitude * exp(-t / (note.decay * partial.decayScale)) * sin(phases[p])
                }
                if let length = note.length, t > length {
                    envelope *= max(0, 1 - (t - length) / 0.03)
                }
                mix[i] += note.amplitude * envelope * sample
            }
        }
        // Fades: 3 ms in, up to 80 ms out, so neither end clicks; the last sample is exactly 0.
        let fadeIn = Int(0.003 * rate), fadeOut = Int(min(0.08, duration / 4) * rate)
        for i in 0..<min(fadeIn, frames) { mix[i] *= Double(i) / Double(fadeIn) }
        for k in 0..<min(fadeOut, frames) { mix[frames - 1 - k] *= Double(k) / Double(fadeOut) }
        let peak = mix.reduce(0) { max($0, abs($1)) }
        let scale = peak > 0 ? pow(10, peakDBFS / 20) * 32_767 / peak : 0
        return SoundClip(samples: mix.map { Int16(($0 * scale).rounded()) }, channels: 1)
    }
}
