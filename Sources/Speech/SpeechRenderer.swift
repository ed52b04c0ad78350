import Audio
import QuestCore

/// #35: a phrase turned into samples the box's mixer plays (48 kHz, mono). The live one is
/// eSpeak NG (`EspeakSpeech`); tests of what is said and when use a fake.
public protocol SpeechRenderer: Sendable {
    func render(_ text: String) throws(SpeechError) -> SoundClip
    /// What makes its clips what they are (engine, version, voice, rate): the phrase cache's
    /// clips are kept per identity.
    var identity: String { get }
    /// Whether it keeps what it renders in the phrase cache itself (the voice process).
    var keepsClips: Bool { get }
    /// Renders `text` for later: into the cache when it keeps clips (nothing is returned).
    func prepare(_ text: String) throws(SpeechError)
    /// False once it can say nothing more (its process ended): a new one is made.
    var isUsable: Bool { get }
}

extension SpeechRenderer {
    public var keepsClips: Bool { false }
    public var isUsable: Bool { true }
    public func prepare(_ text: String) throws(SpeechError) { _ = try render(text) }
}

/// One line saying what went wrong, naming the voice, the text's problem or the data folder.
public struct SpeechError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What a phrase may be before it is spoken: the screens' words are short, and a task's name
/// is at most 80 characters; anything longer is cut, control characters are dropped.
public enum SpeakableText: Sendable {
    public static let maximumCharacters = 400

    public static func cleaned(_ text: String) -> String {
        var out = ""
        for ch in text where !ch.unicodeScalars.contains(where: DisplayText.isControl) {
            if out.count == maximumCharacters { break }
            out.append(ch)
        }
        // #48: as a person reads it aloud (no emoji names, symbols as words).
        return SpokenText.said(out)
    }
}

/// Linear interpolation to the mixer's rate: speech has little above 5 kHz, and eSpeak NG's
/// 22,050 Hz already cuts it at 11 kHz, so a plain interpolation keeps it clear.
enum Resample {
    static func toMixerRate(_ samples: [Int16], from rate: Int) -> [Int16] {
        let target = SoundClip.sampleRate
        guard rate > 0, !samples.isEmpty else { return [] }
        if rate == target { return samples }
        let count = Int((Double(samples.count) * Double(target) / Double(rate)).rounded(.down))
        var out = [Int16](repeating: 0, count: count)
        let step = Double(rate) / Double(target)
        for i in 0..<count {
            let position = Double(i) * step
            let k = Int(position)
            let fraction = position - Double(k)
            let a = Double(samples[k]), b = Double(samples[min(k + 1, samples.count - 1)])
            out[i] = Int16(clamping: Int((a + (b - a) * fraction).rounded()))
        }
        return out
    }
}
