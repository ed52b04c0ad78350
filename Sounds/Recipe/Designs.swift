import QuestCore

/// Equal-tempered pitch of a note name like "C5" or "F#4" (A4 = 440 Hz).
func pitch(_ name: String) -> Double {
    let steps: [Character: Int] = ["C": -9, "D": -7, "E": -5, "F": -4, "G": -2, "A": 0, "B": 2]
    var chars = Array(name)
    var semitone = steps[chars.removeFirst()] ?? 0
    if chars.first == "#" { semitone += 1; chars.removeFirst() }
    if chars.first == "b" { semitone -= 1; chars.removeFirst() }
    let octave = Int(String(chars)) ?? 4
    return 440 * pow(2, Double(semitone + (octave - 4) * 12) / 12)
}

/// One design per sound. Reveals differ in character: spot on bright and rising, close warm,
/// off neutral, way off soft and curious — never a "fail" buzzer.
func design(_ id: SoundID) -> SoundDesign {
    switch id {
    case .lockIn:
        // A quick upward "click-chime": the guess is locked.
        return SoundDesign(duration: 0.32, peakDBFS: -4, notes: [
            Note(frequency: pitch("A5"), start: 0, decay: 0.05),
            Note(frequency: pitch("E6"), start: 0.06, decay: 0.08),
        ])
    case .stop:
        // A wooden "tock" that settles a little downward: done.
        return SoundDesign(duration: 0.28, peakDBFS: -4, notes: [
            Note(frequency: pitch("D5"), start: 0, decay: 0.045, timbre: .wood, glideTo: pitch("B4"), glideTime: 0.06),
            Note(frequency: pitch("D4"), start: 0, decay: 0.06, amplitude: 0.5, timbre: .soft),
        ])
    case .revealSpotOn:
        // Bright rising major arpeggio with a sparkle on top.
        let run = ["C5", "E5", "G5", "C6"].enumerated().map { i, n in
            Note(frequency: pitch(n), start: 0.09 * Double(i), decay: 0.35, amplitude: 0.8)
        }
        return SoundDesign(duration: 1.7, peakDBFS: -2, notes: run + [
            Note(frequency: pitch("E6"), start: 0.42, decay: 0.5, amplitude: 0.45),
            Note(frequency: pitch("G6"), start: 0.5, decay: 0.5, amplitude: 0.35),
            Note(frequency: pitch("C7"), start: 0.58, decay: 0.45, amplitude: 0.25),
        ])
    case .revealClose:
        // Warm, gently rising: nearly there.
        return SoundDesign(duration: 1.3, peakDBFS: -3, notes: [
            Note(frequency: pitch("G4"), start: 0, decay: 0.45, amplitude: 0.8, timbre: .soft),
            Note(frequency: pitch("C5"), start: 0.16, decay: 0.45, amplitude: 0.8, timbre: .soft),
            Note(frequency: pitch("E5"), start: 0.32, decay: 0.5, amplitude: 0.7, timbre: .soft),
        ])
    case .revealOff:
        // Neutral and level: two plucked notes, a step apart, no judgement.
        return SoundDesign(duration: 1.1, peakDBFS: -4, notes: [
            Note(frequency: pitch("A4"), start: 0, decay: 0.3, timbre: .pluck),
            Note(frequency: pitch("B4"), start: 0.22, decay: 0.35, timbre: .pluck),
        ])
    case .revealWayOff:
        // Soft and curious: a slow upward "hmm?" slide with a little wobble.
        return SoundDesign(duration: 1.5, peakDBFS: -6, notes: [
            Note(frequency: pitch("E4"), start: 0, decay: 0.7, timbre: .soft, length: 0.9,
                 glideTo: pitch("B4"), glideTime: 0.6, vibrato: 0.15, attack: 0.06),
            Note(frequency: pitch("D5"), start: 0.95, decay: 0.18, amplitude: 0.5, timbre: .soft, attack: 0.02),
        ])
    case .levelUp:
        // A fast climb ending on a ringing chord.
        let climb = ["C5", "D5", "E5", "G5", "A5"].enumerated().map { i, n in
            Note(frequency: pitch(n), start: 0.06 * Double(i), decay: 0.12, amplitude: 0.7, timbre: .pluck)
        }
        let chord = ["C6", "E6", "G6"].map { Note(frequency: pitch($0), start: 0.32, decay: 0.4, amplitude: 0.55) }
        return SoundDesign(duration: 1.45, peakDBFS: -2, notes: climb + chord)
    case .personalBest:
        // A small fanfare: two pick-ups and a held chord.
        return SoundDesign(duration: 1.4, peakDBFS: -2, notes: [
            Note(frequency: pitch("G4"), start: 0, decay: 0.1, amplitude: 0.8, timbre: .pluck),
            Note(frequency: pitch("G4"), start: 0.13, decay: 0.1, amplitude: 0.8, timbre: .pluck),
            Note(frequency: pitch("C5"), start: 0.26, decay: 0.45, timbre: .pluck),
            Note(frequency: pitch("E5"), start: 0.26, decay: 0.45, amplitude: 0.6, timbre: .pluck),
            Note(frequency: pitch("G5"), start: 0.26, decay: 0.45, amplitude: 0.5, timbre: .pluck),
        ])
    case .questComplete:
        // Two chords, F then C: the routine is done.
        let first = ["F4", "A4", "C5"].enumerated().map { i, n in
            Note(frequency: pitch(n), start: 0.07 * Double(i), decay: 0.3, amplitude: 0.6, timbre: .soft)
        }
        let second = ["C5", "E5", "G5", "C6"].enumerated().map { i, n in
            Note(frequency: pitch(n), start: 0.42 + 0.04 * Double(i), decay: 0.45, amplitude: 0.55)
        }
        return SoundDesign(duration: 1.5, peakDBFS: -2, notes: first + second)
    case .questAvailable:
        // A gentle two-tone doorbell.
        return SoundDesign(duration: 1.0, peakDBFS: -5, notes: [
            Note(frequency: pitch("E5"), start: 0, decay: 0.3),
            Note(frequency: pitch("C5"), start: 0.3, decay: 0.3),
        ])
    case .streakMilestone:
        // Sparkling trill up high, then an open fifth.
        let trill = (0..<6).map { i in
            Note(frequency: pitch(i % 2 == 0 ? "E6" : "G6"), start: 0.05 * Double(i), decay: 0.05, amplitude: 0.5)
        }
        return SoundDesign(duration: 1.25, peakDBFS: -3, notes: trill + [
            Note(frequency: pitch("G5"), start: 0.32, decay: 0.4, amplitude: 0.7, timbre: .soft),
            Note(frequency: pitch("D6"), start: 0.32, decay: 0.4, amplitude: 0.5),
        ])
    case .estimateTick:
        // A tiny soft tick for each step of the estimate.
        return SoundDesign(duration: 0.06, peakDBFS: -12, notes: [
            Note(frequency: 1_800, start: 0, decay: 0.008, timbre: .wood, attack: 0.001),
        ])
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
