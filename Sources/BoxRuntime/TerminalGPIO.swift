import BoardProfile
import Foundation
import GPIO
import QuestCore
import SystemClock

/// The box's buttons and lights in a terminal (`questbox simulate`): the board's lines on a
/// pretend chip whose input descriptor is the keyboard. A lowercase key taps a button, the
/// capital holds it down until pressed again; LED and buzzer changes are drawn as they happen.
///
///     l / space  lock      s / enter  stop      u  up      d  down      q  quit
public final class TerminalGPIO: GPIOBackend, @unchecked Sendable {
    public static let help = "keys: l/space lock · s/enter stop · u up · d down · capital = hold until pressed again · q quit"

    let profile: BoardProfile
    let input: Int32
    let clock: SystemClock
    let write: (String) -> Void
    let onQuit: () -> Void
    let chipPath = "/dev/terminal"
    public let library = "the terminal's keys"
    var lines: [String]
    var held: Set<String> = []
    var outputs: [String: Bool] = [:]
    var lastDrawn = ""
    let view: TerminalView?

    /// `view`: the full-screen view the lights are drawn in; nil prints a line per change.
    public init(
        profile: BoardProfile, input: Int32 = STDIN_FILENO, clock: SystemClock, view: TerminalView? = nil,
        write: @escaping (String) -> Void, onQuit: @escaping () -> Void
    ) {
        self.view = view
        self.profile = profile
        self.input = input
        self.clock = clock
        self.write = write
        self.onQuit = onQuit
        lines = profile.linesByRole.map(\.line)
    }

    public func findLine(named name: String, chipLabel: String?) throws -> GPIOLineLocation {
        guard let offset = lines.firstIndex(of: name) else { throw GPIOFailure("line \(name) not found (searched terminal)") }
        return GPIOLineLocation(chipPath: chipPath, chipLabel: chipLabel ?? "terminal", offset: UInt32(offset))
    }

    public func consumer(of line: GPIOLineLocation) throws -> String? { nil }

    public func requestInputs(chipPath: String, offsets: [UInt32], activeLow: Bool, bias: GPIOBias, consumer: String) throws -> GPIORequest {
        Keyboard(owner: self)
    }

    public func requestOutputs(chipPath: String, offsets: [UInt32], activeLow: Bool, consumer: String) throws -> GPIORequest {
        Lights(owner: self)
    }

    func line(for role: String) -> (name: String, offset: UInt32)? {
        profile.linesByRole.first { $0.role == role }.flatMap { r in lines.firstIndex(of: r.line).map { (r.line, UInt32($0)) } }
    }

    /// Keys to edges, stamped with CLOCK_MONOTONIC when read (as the kernel stamps real edges).
    func edges(for bytes: [UInt8]) -> [GPIOEdge] {
        var edges: [GPIOEdge] = []
        for byte in bytes {
            let key = Character(UnicodeScalar(byte))
            let role: String?
            switch key.lowercased() {
            case "l", " ": role = "lock"
            case "s", "\r", "\n": role = "stop"
            case "u": role = "up"
            case "d": role = "down"
            case "q", "\u{3}", "\u{4}":
                onQuit()
                return edges
            default: role = nil
            }
            guard let role, let l = line(for: role) else { continue }
            let now = clock.monotonicNanos()
            if key.isUppercase {
                if held.remove(l.name) != nil {
                    edges.append(GPIOEdge(offset: l.offset, rising: false, timestampNanos: now))
                } else {
                    held.insert(l.name)
                    edges.append(GPIOEdge(offset: l.offset, rising: true, timestampNanos: now))
                }
            } else {
                // A tap: pressed now, released 40 ms later (past the debounce window).
                edges.append(GPIOEdge(offset: l.offset, rising: true, timestampNanos: now))
                edges.append(GPIOEdge(offset: l.offset, rising: false, timestampNanos: now + 40_000_000))
            }
        }
        return edges
    }

    func set(_ values: [(offset: UInt32, value: Bool)]) {
        for v in values where lines.indices.contains(Int(v.offset)) { outputs[lines[Int(v.offset)]] = v.value }
        draw()
    }

    func draw() {
        func on(_ role: String) -> Bool { line(for: role).map { outputs[$0.name] ?? false } ?? false }
        let led: String
        if line(for: "led") != nil {
            led = on("led") ? "\u{1B}[93m●\u{1B}[0m on" : "○ off"
        } else {
            let (r, g, b) = (on("led.red"), on("led.green"), on("led.blue"))
            let color = LEDColor(red: r, green: g, blue: b)
            // ANSI bright colours 91…97 are numbered red=1, green=2, blue=4, like the lines.
            let ansi = (r ? 1 : 0) + (g ? 2 : 0) + (b ? 4 : 0)
            led = color == .off ? "○ off" : "\u{1B}[9\(ansi)m●\u{1B}[0m \(color.rawValue)"
        }
        if let view {
            view.lights(led: led, buzzer: on("buzzer"))
            return
        }
        let status = "  LED \(led)   buzzer \(on("buzzer") ? "≋ on" : "– off")"
        if status != lastDrawn {
            lastDrawn = status
            write(status)
        }
    }

    final class Keyboard: GPIORequest {
        let owner: TerminalGPIO
        init(owner: TerminalGPIO) { self.owner = owner }
        var pollDescriptors: [Int32] { [owner.input] }

        func readEdges(from descriptor: Int32) throws -> [GPIOEdge] {
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = read(descriptor, &buffer, buffer.count)
            if n == 0 {
                owner.onQuit()  // end of input: the session is over
                return []
            }
            guard n > 0 else { return [] }
            return owner.edges(for: Array(buffer.prefix(n)))
        }

        func setValue(_ value: Bool, offset: UInt32) throws {}
        /// A held key (capital letter) reads pressed until it is pressed again; taps have
        /// been released by the time the debounce window closes.
        func value(offset: UInt32) throws -> Bool {
            owner.lines.indices.contains(Int(offset)) && owner.held.contains(owner.lines[Int(offset)])
        }
    }

    final class Lights: GPIORequest {
        let owner: TerminalGPIO
        init(owner: TerminalGPIO) { self.owner = owner }
        var pollDescriptors: [Int32] { [] }
        func readEdges(from descriptor: Int32) throws -> [GPIOEdge] { [] }
        func setValue(_ value: Bool, offset: UInt32) throws { owner.set([(offset, value)]) }
        func setValues(_ values: [(offset: UInt32, value: Bool)]) throws { owner.set(values) }
        func value(offset: UInt32) throws -> Bool { owner.outputs[owner.lines[Int(offset)]] ?? false }
    }
}

/// Screens and sounds written to the terminal (sound itself goes nowhere: the null device).
public final class TerminalOutput: DisplayOutput, SoundOutput, SpeechOutput {
    let write: (String) -> Void
    let view: TerminalView?
    /// `view`: the full-screen view; nil prints each screen and sound as lines.
    public init(view: TerminalView? = nil, write: @escaping (String) -> Void) {
        self.view = view
        self.write = write
    }

    public func show(_ screen: Screen, notice: String?) {
        if let view { return view.show(screen, notice: notice) }
        write("")
        for line in screen.textLines { write("│ \(DisplayText.escaped(line))") }
        if let notice { write("│ ⚠ \(notice)") }
    }

    private var muted = false
    public func apply(soundEnabled: Bool, volumePercent: Int) { muted = !soundEnabled }
    public func play(_ sound: SoundID) {
        let text = muted ? "\(sound.rawValue) (muted)" : sound.rawValue
        if let view { return view.sound(text) }
        write("  ♪ \(text)")
    }

    /// #35: the voice's words, as the sounds are noted (at once: a terminal is never late).
    public func say(_ words: String, notAfter: Int64?) {
        let text = "🗣 " + DisplayText.escaped(words)
        if let view { return view.sound(text) }
        write("  \(text)")
    }
    public func cut() {}
    public func apply(_ choice: VoiceChoice, speaking: Bool) {}
    public func prepare(_ phrases: [String]) {}
}
