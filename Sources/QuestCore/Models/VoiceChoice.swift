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

    /// The voice for a POSIX locale, as an eSpeak NG name that exists (#48: "en-gb", "de-de"
    /// do not, and the box was mute in every locale but en_US, C and POSIX). Every word the
    /// box says is English, so the voice is English in the locale's accent where eSpeak NG
    /// has one: American for en_US and en_CA, its British "en" for the other English
    /// locales (it has no Australian or Irish voice), and American English for every other
    /// language (a German voice reads "two minutes" as German sounds); a parent may choose any
    /// voice (`voice.language`).
    public static func language(forLocale locale: String) -> String {
        let base = locale.split(separator: ".").first.flatMap { $0.split(separator: "@").first }.map(String.init) ?? ""
        let parts = base.split(separator: "_").map { $0.lowercased() }
        guard parts.first == "en", parts.count > 1 else { return "en-us" }
        return ["us", "ca", "ph"].contains(parts[1]) ? "en-us" : "en"
    }

    /// The voices to try for `name`, in order (#48): the name itself, then its language
    /// without the region ("en-gb+m3" → "en+m3", "pt-pt" → "pt"), then the box's own
    /// default; eSpeak NG refuses a name it has no file for, and a box must not go mute.
    public static func fallbacks(for name: String) -> [String] {
        let plus = name.firstIndex(of: "+")
        let voice = plus.map { String(name[..<$0]) } ?? name
        let variant = plus.map { String(name[$0...]) } ?? ""
        var list = [name]
        if let dash = voice.firstIndex(of: "-") { list.append(String(voice[..<dash]) + variant) }
        list.append("en-us+" + defaultVariant)
        var seen = Set<String>()
        return list.filter { isVoiceName($0) && seen.insert($0).inserted }
    }
}
