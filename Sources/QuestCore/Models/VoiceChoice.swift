/// #35: how the box's voice is set: whether it speaks, in which eSpeak NG voice, how fast and
/// how loud beside the sounds. One rule for a voice's name and rate, for the store, the
/// settings and the renderer.
public struct VoiceChoice: Equatable, Sendable {
    /// `auto`: on for a board with no screen (the voice is then its only words), off otherwise.
    public enum Mode: String, CaseIterable, Sendable { case auto, on, off }

    public var mode: Mode = .auto
    /// An eSpeak NG voice ("en-us", "de", "en-us+f3"); nil: from the box's locale.
    public var language: String?
    /// Words per minute.
    public var rate = 150
    /// The voice's loudness relative to the sounds (%).
    public var volumePercent = 100

    public init(mode: Mode = .auto, language: String? = nil, rate: Int = 150, volumePercent: Int = 100) {
        self.mode = mode
        self.language = language
        self.rate = rate
        self.volumePercent = volumePercent
    }

    public static let rateRange = 80...450
    public static let volumeRange = 0...100

    /// Whether the box speaks, for a board with or without a screen.
    public func speaks(boardHasScreen: Bool) -> Bool {
        switch mode {
        case .on: true
        case .off: false
        case .auto: !boardHasScreen
        }
    }

    /// eSpeak NG's variant the box speaks in unless a voice is chosen: of the voices Debian
    /// ships, `+m3` put the most of its energy in the 2–5 kHz band where consonants are told
    /// apart ("fifteen" from "fifty"), at the same evenness and the shortest length
    /// (docs/sound.md, `scripts/voice-compare.sh`).
    public static let defaultVariant = "m3"

    /// The voice to speak in: the chosen one, else the one for the box's locale (`LANG`) in
    /// the default variant ("en_US.UTF-8" → "en-us+m3").
    public func voiceName(locale: String) -> String { language ?? "\(Self.language(forLocale: locale))+\(Self.defaultVariant)" }

    /// The same, the locale read from a process's environment as POSIX does (`LC_ALL`, then `LANG`).
    public func voiceName(environment: [String: String]) -> String { voiceName(locale: environment["LC_ALL"] ?? environment["LANG"] ?? "C") }

    /// An eSpeak NG voice's name as the box takes it: 1–32 of a–z, A–Z, 0–9, `-`, `_`, `+`
    /// (never a path, a space or a shell character).
    public static func isVoiceName(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count)
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2B }
    }

    /// The voice for a POSIX locale ("en_US.UTF-8" → "en-us", "de_DE" → "de-de", "C" → "en-us"):
    /// eSpeak NG picks the nearest voice it has for a name it does not know exactly.
    public static func language(forLocale locale: String) -> String {
        let base = locale.split(separator: ".").first.map(String.init) ?? ""
        let parts = base.split(separator: "_").map { $0.lowercased() }
        guard let first = parts.first, first.count == 2 || first.count == 3, first.allSatisfy(\.isLetter) else { return "en-us" }
        let name = parts.count > 1 ? "\(first)-\(parts[1])" : first
        return isVoiceName(name) ? name : "en-us"
    }
}
