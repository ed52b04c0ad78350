import Foundation
import InputFiles
import Yams

/// One board's wiring and timing (SPEC §7): which GPIO line does what, found by line name
/// (never by chip number), how buttons are wired, and which sound card to use.
public struct BoardProfile: Equatable, Sendable {
    public enum Bias: String, Sendable, CaseIterable {
        case pullUp = "pull-up"
        case pullDown = "pull-down"
        case disabled
        case asIs = "as-is"
    }

    /// The status LED: one line, or three for RGB.
    public enum LED: Equatable, Sendable {
        case single(line: String)
        case rgb(red: String, green: String, blue: String)

        public var lines: [String] {
            switch self {
            case .single(let line): [line]
            case .rgb(let r, let g, let b): [r, g, b]
            }
        }
    }

    public var name: String
    public var description: String
    /// A chip label to search, or nil for every chip ("auto").
    public var chip: String?
    public var lock: String
    public var stop: String
    public var up: String
    public var down: String
    public var led: LED
    public var buzzer: String
    public var buttonsActiveLow: Bool
    public var buttonBias: Bias
    public var outputsActiveLow: Bool
    public var debounceMs: Int
    public var holdMs: Int
    public var audioCard: String
    public var audioLatencyMs: Int
    /// `control.socket_press`: the socket's `press` command may push this board's buttons
    /// (simulated boards; a real box's buttons are pressed by hand).
    public var socketPress = false
    /// `display:`: the box's own screen, or nil for none.
    public var display: DisplayConfig?

    /// Every line the box requests, by role.
    public var linesByRole: [(role: String, line: String)] {
        var lines = [("lock", lock), ("stop", stop), ("up", up), ("down", down)]
        switch led {
        case .single(let l): lines.append(("led", l))
        case .rgb(let r, let g, let b): lines += [("led.red", r), ("led.green", g), ("led.blue", b)]
        }
        lines.append(("buzzer", buzzer))
        return lines
    }
}

/// A problem with a profile: "<file>: <field>: <problem>".
public struct BoardProfileError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var field: String
    public var problem: String
    public var description: String { field.isEmpty ? "\(file): \(problem)" : "\(file): \(field): \(problem)" }
}

extension BoardProfile {
    static let topKeys: Set<String> = ["name", "description", "chip", "lines", "buttons", "outputs", "audio", "control", "display"]
    static let lineKeys: Set<String> = ["lock", "stop", "up", "down", "led", "buzzer"]
    static let ledKeys: Set<String> = ["red", "green", "blue"]
    static let buttonKeys: Set<String> = ["active_low", "bias", "debounce_ms", "hold_ms"]
    static let outputKeys: Set<String> = ["active_low"]
    static let audioKeys: Set<String> = ["card", "latency_ms"]
    static let controlKeys: Set<String> = ["socket_press"]

    /// Reads and checks a profile file; every field is validated before anything is returned.
    /// A real profile is about 2 KiB; the cap keeps a hostile file from costing minutes.
    public static let maximumBytes = 64 << 10

    public static func load(path: String) throws -> BoardProfile {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, maximumBytes: maximumBytes)
        } catch {
            throw BoardProfileError(file: path, field: "", problem: error.problem)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw BoardProfileError(file: path, field: "", problem: "not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// Where the first YAML anchor (`&a`) or alias (`*a`) starts, outside quotes and comments.
    /// A few hundred bytes of aliases stand for millions of nodes ("billion laughs"), which the
    /// YAML library would expand and hash for minutes; a board profile never needs them, so
    /// they are refused before parsing. YAML lets no plain value start with & or *.
    static func firstAnchorOrAlias(in yaml: String) -> (line: Int, column: Int)? {
        var line = 1, column = 0
        var previous: Unicode.Scalar = "\n"
        var quote: Unicode.Scalar?
        var escaped = false, comment = false
        for c in yaml.unicodeScalars {
            if c == "\n" {
                line += 1
                column = 0
                comment = false
                previous = c
                continue
            }
            column += 1
            defer { previous = c }
            if comment { continue }
            if let open = quote {
                // In double quotes a backslash escapes.
                if escaped { escaped = false } else if open == "\"" && c == "\\" { escaped = true } else if c == open { quote = nil }
                continue
            }
            // In single quotes '' is one quote: the string goes on.
            if c == "'" && previous == "'" {
                quote = c
                continue
            }
            let tokenStart = [" ", "\t", "\n", "[", "{", ",", ":", "-", "?"].contains(previous)
            guard tokenStart else { continue }
            switch c {
            case "#": comment = true
            case "\"", "'": quote = c
            case "&", "*": return (line, column)
            default: break
            }
        }
        return nil
    }

    public static func parse(_ yaml: String, file: String) throws -> BoardProfile {
        func fail(_ field: String, _ problem: String) -> BoardProfileError { BoardProfileError(file: file, field: field, problem: problem) }
        if let (line, column) = firstAnchorOrAlias(in: yaml) {
            throw fail("", "YAML anchors and aliases (& and *) are not used in board profiles (line \(line), column \(column))")
        }
        let node: Node?
        do {
            // The basic resolver: every plain scalar stays text until a field reads it as a
            // number or true/false. Yams' default resolver matches each scalar against regular
            // expressions (NSRegularExpression, ICU's regex engine and Unicode tables: about a
            // megabyte the box would keep resident for a file read once at start).
            node = try Yams.compose(yaml: yaml, .basic)
        } catch let error as YamlError {
            throw fail("", "not valid YAML (\(Self.describe(error)))")
        }
        guard let root = node?.mapping else { throw fail("", "expected a mapping of fields (name, chip, lines, buttons, outputs, audio)") }
        try checkKeys(root, allowed: topKeys, prefix: "", fail: fail)

        let name = try requiredText(root, "name", prefix: "", fail: fail)
        let description = try text(root, "description", prefix: "", required: false, fail: fail) ?? ""
        let chipValue = try text(root, "chip", prefix: "", required: false, fail: fail) ?? "auto"
        let chip: String? = chipValue == "auto" ? nil : chipValue

        guard let linesNode = root["lines"] else { throw fail("lines", "missing (the GPIO line name for lock, stop, up, down, led, buzzer)") }
        guard let lines = linesNode.mapping else { throw fail("lines", "expected a mapping of role: line name") }
        try checkKeys(lines, allowed: lineKeys, prefix: "lines.", fail: fail)
        func line(_ key: String) throws -> String { try requiredText(lines, key, prefix: "lines.", fail: fail) }
        let lock = try line("lock"), stop = try line("stop"), up = try line("up"), down = try line("down"), buzzer = try line("buzzer")
        let led: LED
        switch lines["led"] {
        case nil: throw fail("lines.led", "missing (one line name, or red/green/blue)")
        case let ledNode? where ledNode.scalar != nil:
            led = .single(line: try line("led"))
        case let ledNode?:
            guard let rgb = ledNode.mapping else { throw fail("lines.led", "expected a line name or red/green/blue") }
            try checkKeys(rgb, allowed: ledKeys, prefix: "lines.led.", fail: fail)
            func color(_ key: String) throws -> String { try requiredText(rgb, key, prefix: "lines.led.", fail: fail) }
            led = .rgb(red: try color("red"), green: try color("green"), blue: try color("blue"))
        }

        let buttons = try section(root, "buttons", allowed: buttonKeys, fail: fail)
        let buttonsActiveLow = try bool(buttons, "active_low", prefix: "buttons.", default: true, fail: fail)
        let biasText = try text(buttons, "bias", prefix: "buttons.", required: false, fail: fail) ?? Bias.pullUp.rawValue
        guard let bias = Bias(rawValue: biasText) else {
            throw fail("buttons.bias", "\"\(biasText)\" is not one of \(Bias.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let debounce = try integer(buttons, "debounce_ms", prefix: "buttons.", default: 30, range: 1...500, fail: fail)
        let hold = try integer(buttons, "hold_ms", prefix: "buttons.", default: 800, range: 100...5_000, fail: fail)
        let outputs = try section(root, "outputs", allowed: outputKeys, fail: fail)
        let outputsActiveLow = try bool(outputs, "active_low", prefix: "outputs.", default: false, fail: fail)
        let audio = try section(root, "audio", allowed: audioKeys, fail: fail)
        let card = try text(audio, "card", prefix: "audio.", required: false, fail: fail) ?? "default"
        let latency = try integer(audio, "latency_ms", prefix: "audio.", default: 20, range: 5...500, fail: fail)

        let control = try section(root, "control", allowed: controlKeys, fail: fail)
        let socketPress = try bool(control, "socket_press", prefix: "control.", default: false, fail: fail)

        var profile = BoardProfile(
            name: name, description: description, chip: chip, lock: lock, stop: stop, up: up, down: down, led: led, buzzer: buzzer,
            buttonsActiveLow: buttonsActiveLow, buttonBias: bias, outputsActiveLow: outputsActiveLow, debounceMs: debounce,
            holdMs: hold, audioCard: card, audioLatencyMs: latency)
        profile.socketPress = socketPress
        profile.display = try DisplayConfig.parse(root, fail: fail)
        var seen: [String: String] = [:]
        for (role, l) in profile.linesByRole {
            if let other = seen[l] { throw fail("lines.\(role)", "\"\(l)\" is already used for \(other)") }
            seen[l] = role
        }
        if hold <= debounce { throw fail("buttons.hold_ms", "\(hold) must be longer than debounce_ms (\(debounce))") }
        return profile
    }

    static func checkKeys(_ m: Node.Mapping, allowed: Set<String>, prefix: String, fail: (String, String) -> BoardProfileError) throws {
        for key in m.keys {
            guard let k = key.string else { throw fail(prefix.isEmpty ? "" : String(prefix.dropLast()), "keys must be text") }
            if !allowed.contains(k) { throw fail(prefix + k, "unknown field (expected one of \(allowed.sorted().joined(separator: ", ")))") }
        }
    }

    static func section(_ root: Node.Mapping, _ key: String, allowed: Set<String>, fail: (String, String) -> BoardProfileError) throws -> Node.Mapping? {
        guard let node = root[key] else { return nil }
        guard let m = node.mapping else { throw fail(key, "expected a mapping") }
        try checkKeys(m, allowed: allowed, prefix: key + ".", fail: fail)
        return m
    }

    static func text(_ m: Node.Mapping?, _ key: String, prefix: String, required: Bool, fail: (String, String) -> BoardProfileError) throws -> String? {
        guard let node = m?[key] else {
            if required { throw fail(prefix + key, "missing") }
            return nil
        }
        guard let scalar = node.scalar else { throw fail(prefix + key, "expected text") }
        let value = scalar.string.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { throw fail(prefix + key, "empty") }
        return value
    }

    /// A field that must be there: its text, or the one-line "missing".
    static func requiredText(_ m: Node.Mapping?, _ key: String, prefix: String, fail: (String, String) -> BoardProfileError) throws -> String {
        guard let value = try text(m, key, prefix: prefix, required: true, fail: fail) else { throw fail(prefix + key, "missing") }
        return value
    }

    static func bool(_ m: Node.Mapping?, _ key: String, prefix: String, default value: Bool, fail: (String, String) -> BoardProfileError) throws -> Bool {
        guard let node = m?[key] else { return value }
        guard let scalar = node.scalar, scalar.style == .plain, let b = yamlBooleans[scalar.string] else {
            throw fail(prefix + key, "\"\(node.scalar?.string ?? "?")\" is not true or false")
        }
        return b
    }

    /// The plain scalars YAML 1.1 reads as true or false (what Yams' default resolver accepts;
    /// a quoted "true" is text).
    static let yamlBooleans: [String: Bool] = [
        "true": true, "True": true, "TRUE": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
        "false": false, "False": false, "FALSE": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
    ]

    static func integer(
        _ m: Node.Mapping?, _ key: String, prefix: String, default value: Int, range: ClosedRange<Int>,
        fail: (String, String) -> BoardProfileError
    ) throws -> Int {
        guard let node = m?[key] else { return value }
        guard let i = node.int, range.contains(i) else {
            throw fail(prefix + key, "\"\(node.scalar?.string ?? "?")\" is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return i
    }

    static func describe(_ error: YamlError) -> String {
        "\(error)".split(separator: "\n").first.map(String.init) ?? "syntax error"
    }
}

/// Where profiles are looked up by name: `$QUESTBOX_BOARDS`, then `/etc/questbox/boards`,
/// `/usr/share/questbox/boards`, the `share/questbox/boards` beside the executable, and
/// `Boards/` in the current directory (a source checkout).
public enum BoardCatalog {
    public static func searchDirectories(environment: [String: String] = ProcessInfo.processInfo.environment, executable: String = runningExecutable()) -> [String] {
        var dirs: [String] = []
        if let custom = environment["QUESTBOX_BOARDS"], !custom.isEmpty { dirs += custom.split(separator: ":").map(String.init) }
        dirs += ["/etc/questbox/boards", "/usr/share/questbox/boards"]
        let exeDir = URL(fileURLWithPath: executable).deletingLastPathComponent()
        dirs.append(exeDir.deletingLastPathComponent().appendingPathComponent("share/questbox/boards").path)
        // #48: a program built in a source tree (.build/<triple>/<configuration>/) finds the
        // tree's own profiles wherever it is started (it listed none outside the tree).
        var ancestor = exeDir
        for _ in 0..<4 {
            ancestor = ancestor.deletingLastPathComponent()
            let boards = ancestor.appendingPathComponent("Boards").path
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: ancestor.appendingPathComponent("Package.swift").path),
               FileManager.default.fileExists(atPath: boards, isDirectory: &isFolder), isFolder.boolValue {
                dirs.append(boards)
                break
            }
        }
        dirs.append(FileManager.default.currentDirectoryPath + "/Boards")
        return dirs
    }

    /// The running program's own file (`/proc/self/exe`): `argv[0]` is a bare name when the
    /// program was found on the PATH.
    public static func runningExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
    }

    /// Profile files by name (the file name without `.yaml`), first directory wins.
    public static func available(in directories: [String]) -> [(name: String, path: String)] {
        var found: [String: String] = [:]
        for dir in directories {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { continue }
            for file in names where file.hasSuffix(".yaml") {
                let name = String(file.dropLast(5))
                if found[name] == nil { found[name] = (dir as NSString).appendingPathComponent(file) }
            }
        }
        return found.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `--board NAME|PATH`: a path when it names a file, else a profile name.
    public static func resolve(_ nameOrPath: String, in directories: [String]) throws -> BoardProfile {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".yaml") { return try BoardProfile.load(path: nameOrPath) }
        guard let match = available(in: directories).first(where: { $0.name == nameOrPath }) else {
            let known = available(in: directories).map(\.name)
            throw BoardProfileError(
                file: nameOrPath, field: "",
                problem: "no such board profile (known: \(known.isEmpty ? "none" : known.joined(separator: ", ")); searched \(directories.joined(separator: ", ")))")
        }
        return try BoardProfile.load(path: match.path)
    }
}
