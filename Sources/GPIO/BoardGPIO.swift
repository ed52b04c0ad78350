import BoardProfile
import CGPIOD
import Foundation
import QuestCore

/// A board's lines, requested and bound to their roles: button edges out, LED and buzzer in.
/// Requests are released (and outputs switched off) when this object goes away.
public final class BoardGPIO {
    public let profile: BoardProfile
    private var inputs: [(request: GPIORequest, chipPath: String)] = []
    private var outputs: [String: (request: GPIORequest, offset: UInt32)] = [:]
    private var roleOfInput: [String: [UInt32: ButtonRole]] = [:]
    private var requestOfDescriptor: [Int32: (request: GPIORequest, chip: String, live: LiveGPIORequest?)] = [:]
    private var inputOfRole: [ButtonRole: (request: GPIORequest, offset: UInt32)] = [:]
    /// The LED's lines a press sets as its edge is read (nil: the LED's lines are on more than
    /// one chip, and the loop sets them).
    private var pressLights: PressLights?
    /// The edges the loop's poll reads as it returns (nil: no libgpiod lines, the fakes).
    private var readAhead: EdgeReadAhead?

    /// Finds every line of the profile by name, refuses lines another process holds, and
    /// requests them: buttons as inputs with both edges, the LED and buzzer as outputs (off).
    public init(profile: BoardProfile, backend: GPIOBackend, consumer: String = "questbox") throws {
        self.profile = profile
        let buttonRoles: [(ButtonRole, String)] = [(.lock, profile.lock), (.stop, profile.stop), (.up, profile.up), (.down, profile.down)]
        var outputLines: [(String, String)] = []
        switch profile.led {
        case .single(let l): outputLines.append(("led", l))
        case .rgb(let r, let g, let b): outputLines += [("led.red", r), ("led.green", g), ("led.blue", b)]
        }
        outputLines.append(("buzzer", profile.buzzer))

        func locate(_ role: String, _ name: String) throws -> GPIOLineLocation {
            let location: GPIOLineLocation
            do {
                location = try backend.findLine(named: name, chipLabel: profile.chip)
            } catch let failure as GPIOFailure {
                throw GPIOFailure("board \(profile.name): \(role): \(failure.description)")
            }
            if let holder = try backend.consumer(of: location) {
                throw GPIOFailure("board \(profile.name): \(role): line \(name) (\(location.chipPath) line \(location.offset)) is busy, held by \(holder)")
            }
            return location
        }

        var buttonsByChip: [String: [(ButtonRole, UInt32)]] = [:]
        for (role, name) in buttonRoles {
            let l = try locate(role.rawValue, name)
            buttonsByChip[l.chipPath, default: []].append((role, l.offset))
        }
        var outputsByChip: [String: [(String, UInt32)]] = [:]
        for (role, name) in outputLines {
            let l = try locate(role, name)
            outputsByChip[l.chipPath, default: []].append((role, l.offset))
        }
        let bias: GPIOBias = switch profile.buttonBias {
        case .asIs: .asIs
        case .disabled: .disabled
        case .pullUp: .pullUp
        case .pullDown: .pullDown
        }
        for (chip, lines) in buttonsByChip.sorted(by: { $0.key < $1.key }) {
            let request = try backend.requestInputs(
                chipPath: chip, offsets: lines.map(\.1), activeLow: profile.buttonsActiveLow, bias: bias, consumer: consumer)
            inputs.append((request, chip))
            roleOfInput[chip] = Dictionary(uniqueKeysWithValues: lines.map { ($0.1, $0.0) })
            for fd in request.pollDescriptors { requestOfDescriptor[fd] = (request, chip, request as? LiveGPIORequest) }
            for (role, offset) in lines { inputOfRole[role] = (request, offset) }
        }
        for (chip, lines) in outputsByChip.sorted(by: { $0.key < $1.key }) {
            let request = try backend.requestOutputs(chipPath: chip, offsets: lines.map(\.1), activeLow: profile.outputsActiveLow, consumer: consumer)
            for (role, offset) in lines { outputs[role] = (request, offset) }
        }
        readAhead = EdgeReadAhead(requestOfDescriptor.sorted { $0.key < $1.key }.compactMap { fd, entry in entry.live.map { (fd, $0) } })
        let ledLines = ["led", "led.red", "led.green", "led.blue"].compactMap { outputs[$0] }
        if let first = ledLines.first, ledLines.allSatisfy({ $0.request === first.request }) {
            pressLights = PressLights(outputs: first.request, offsets: ledLines.map(\.offset))
        }
    }

    deinit { try? allOff() }

    /// Every descriptor the event loop polls for button edges.
    public var pollDescriptors: [Int32] { requestOfDescriptor.keys.sorted() }

    /// The button edges behind a readable descriptor, as (role, pressed, kernel time).
    public func readButtonEdges(from descriptor: Int32) throws -> [(role: ButtonRole, pressed: Bool, atNanos: MonotonicNanos)] {
        try readButtonEdges(from: descriptor, lightingAhead: false).edges
    }

    /// The same, and with `lightingAhead` the first edge's LED colour set as it was read when
    /// it is a press `armPressLights` covers (`litAhead`: that colour).
    public func readButtonEdges(from descriptor: Int32, lightingAhead: Bool) throws
        -> (edges: [(role: ButtonRole, pressed: Bool, atNanos: MonotonicNanos)], litAhead: LEDColor?)
    {
        guard let (request, chip, live) = requestOfDescriptor[descriptor] else { return ([], nil) }
        let lighting = lightingAhead ? pressLights : nil
        // Read by the poll's own call, its light set there (as `lightingAhead` was then), or now.
        let (edges, lit) = try readAhead?.take(descriptor)
            ?? live?.readEdges(from: descriptor, lighting: lighting) ?? request.readEdges(from: descriptor, lighting: lighting)
        let roles = edges.compactMap { edge in roleOfInput[chip]?[edge.offset].map { ($0, edge.rising, edge.timestampNanos) } }
        return (roles, lit.flatMap { i in pressLights.map { $0.lights[i].color } })
    }

    /// The read the loop's poll makes as it returns, lighting a press when `lighting` (as
    /// `readButtonEdges(from:lightingAhead:)` would): nil when the lines are not libgpiod's.
    public func readAheadOnPoll(lighting: Bool) -> PollReadAhead? {
        guard let readAhead else { return nil }
        readAhead.prepare(plan: lighting ? pressLights?.table : nil)
        return PollReadAhead(after: qb_read_ready_edges, context: UnsafeMutableRawPointer(readAhead.table))
    }

    /// Whether the poll's read holds edges of `descriptor` the loop has not taken (a level read
    /// must come after them).
    public func holdsReadAhead(_ descriptor: Int32) -> Bool { readAhead?.holds(descriptor) ?? false }

    /// Presses whose LED the poll's own read set (the loop's shutdown line).
    public var pressesLitByPoll: Int { readAhead?.pressesLit ?? 0 }

    /// What a press of each button lights from its edge on (a press stamped before `fromNanos`
    /// is left to the loop), until armed again; an empty list disarms every button.
    public func armPressLights(_ lights: [(role: ButtonRole, color: LEDColor, fromNanos: MonotonicNanos)]) {
        guard let pressLights else { return }
        pressLights.arm(lights.compactMap { light in
            inputOfRole[light.role].map {
                PressLights.Light(input: $0.request, offset: $0.offset, fromNanos: light.fromNanos, color: light.color, values: ledLineValues(light.color).map(\.on))
            }
        })
    }

    /// Whether presses can be lit as their edges are read (the LED's lines on one chip).
    public var canLightPresses: Bool { pressLights != nil }

    /// The LED's lines and their values for a colour, in `PressLights`' order (led, or red,
    /// green, blue): the one plan `setLED` and the armed lights share.
    private func ledLineValues(_ color: LEDColor) -> [(role: String, on: Bool)] {
        if outputs["led"] != nil { return [("led", color != .off)] }
        let (r, g, b) = color.rgb
        return [("led.red", r), ("led.green", g), ("led.blue", b)]
    }

    /// Whether a button is held now (its line's level, polarity applied).
    public func isPressed(_ role: ButtonRole) throws -> Bool {
        for (request, chip) in inputs {
            if let offset = roleOfInput[chip]?.first(where: { $0.value == role })?.key {
                return try request.value(offset: offset)
            }
        }
        throw GPIOFailure("board \(profile.name): no line for the \(role) button")
    }

    /// The LED's colour: an RGB LED mixes its three lines; a single LED is on for any colour.
    public func setLED(_ color: LEDColor) throws {
        if let single = outputs["led"] { return try single.request.setValue(color != .off, offset: single.offset) }
        // One change per request: no passing through other colours on the way.
        var batches: [ObjectIdentifier: (request: GPIORequest, values: [(offset: UInt32, value: Bool)])] = [:]
        for (role, on) in ledLineValues(color) {
            guard let line = outputs[role] else { continue }
            batches[ObjectIdentifier(line.request), default: (line.request, [])].values.append((line.offset, on))
        }
        for batch in batches.values { try batch.request.setValues(batch.values) }
    }

    public func setBuzzer(_ on: Bool) throws {
        if let line = outputs["buzzer"] { try line.request.setValue(on, offset: line.offset) }
    }

    /// LED and buzzer off (at shutdown, before the lines are released).
    public func allOff() throws {
        try setLED(.off)
        try setBuzzer(false)
    }

    /// An output line's current logical value (for `doctor` and tests).
    public func outputValue(role: String) throws -> Bool? {
        guard let line = outputs[role] else { return nil }
        return try line.request.value(offset: line.offset)
    }
}

/// A GPIO world in memory: chips with named lines, consumers, scripted edges behind real
/// pipe descriptors (so poll-based code can be tested), and output values to read back.
public final class FakeGPIO: GPIOBackend, @unchecked Sendable {
    public let library = "FakeGPIO (in memory)"
    public struct Chip {
        public var path: String
        public var label: String
        public var lines: [String]
        public init(path: String, label: String, lines: [String]) {
            self.path = path
            self.label = label
            self.lines = lines
        }
    }

    public final class Request: GPIORequest {
        let chipPath: String
        let offsets: [UInt32]
        let isInput: Bool
        var values: [UInt32: Bool] = [:]
        var pending: [GPIOEdge] = []
        let lock = NSLock()
        let pipe: (read: Int32, write: Int32)?
        weak var owner: FakeGPIO?

        init(chipPath: String, offsets: [UInt32], isInput: Bool, owner: FakeGPIO) {
            self.chipPath = chipPath
            self.offsets = offsets
            self.isInput = isInput
            self.owner = owner
            var fds: [Int32] = [-1, -1]
            pipe = isInput && Foundation.pipe(&fds) == 0 ? (fds[0], fds[1]) : nil
            for o in offsets { values[o] = false }
        }

        deinit {
            if let pipe {
                close(pipe.read)
                close(pipe.write)
            }
            owner?.released(self)
        }

        public var pollDescriptors: [Int32] { pipe.map { [$0.read] } ?? [] }

        public func readEdges(from descriptor: Int32) throws -> [GPIOEdge] {
            guard let pipe, descriptor == pipe.read else { throw GPIOFailure("bad descriptor") }
            // Edges are injected from the test's thread while the loop reads them.
            let taken = lock.withLock { () -> [GPIOEdge] in
                defer { pending = [] }
                return pending
            }
            var byte: UInt8 = 0
            for _ in taken { _ = read(pipe.read, &byte, 1) }
            return taken
        }

        public func setValue(_ value: Bool, offset: UInt32) throws {
            try lock.withLock {
                guard values[offset] != nil else { throw GPIOFailure("line \(offset) not requested") }
                values[offset] = value
            }
            owner?.record((chipPath, offset, value))
        }

        public func value(offset: UInt32) throws -> Bool {
            try lock.withLock {
                guard let v = values[offset] else { throw GPIOFailure("line \(offset) not requested") }
                return v
            }
        }

        /// An input line's level follows the edges injected into it.
        func inject(_ edge: GPIOEdge) {
            lock.withLock {
                pending.append(edge)
                values[edge.offset] = edge.rising
            }
            var byte: UInt8 = 1
            if let pipe { _ = write(pipe.write, &byte, 1) }
        }
    }

    public var chips: [Chip]
    /// Lines held by other processes: "path:offset" → consumer.
    public var heldByOthers: [String: String] = [:]
    public private(set) var requests: [ObjectIdentifier: Request] = [:]
    public private(set) var releasedCount = 0
    /// Every output change: (chip, offset, value).
    public var history: [(String, UInt32, Bool)] { historyLock.withLock { changes } }
    private var changes: [(String, UInt32, Bool)] = []
    private let historyLock = NSLock()

    func record(_ change: (String, UInt32, Bool)) { historyLock.withLock { changes.append(change) } }

    public init(chips: [Chip]) { self.chips = chips }

    public func findLine(named name: String, chipLabel: String?) throws -> GPIOLineLocation {
        let candidates = chips.filter { chipLabel == nil || $0.label == chipLabel }
        for chip in candidates {
            if let offset = chip.lines.firstIndex(of: name) { return GPIOLineLocation(chipPath: chip.path, chipLabel: chip.label, offset: UInt32(offset)) }
        }
        let searched = candidates.map { "\(($0.path as NSString).lastPathComponent) (\($0.label))" }.joined(separator: ", ")
        throw GPIOFailure("line \(name) not found (searched \(searched.isEmpty ? (chipLabel == nil ? "no GPIO chips" : "no chip with that label") : searched))")
    }

    public func consumer(of line: GPIOLineLocation) throws -> String? {
        if let other = heldByOthers["\(line.chipPath):\(line.offset)"] { return other }
        return requests.values.contains { $0.chipPath == line.chipPath && $0.offsets.contains(line.offset) } ? "questbox" : nil
    }

    public func requestInputs(chipPath: String, offsets: [UInt32], activeLow: Bool, bias: GPIOBias, consumer: String) throws -> GPIORequest {
        try request(chipPath: chipPath, offsets: offsets, isInput: true)
    }

    public func requestOutputs(chipPath: String, offsets: [UInt32], activeLow: Bool, consumer: String) throws -> GPIORequest {
        try request(chipPath: chipPath, offsets: offsets, isInput: false)
    }

    func request(chipPath: String, offsets: [UInt32], isInput: Bool) throws -> Request {
        for o in offsets where try consumer(of: GPIOLineLocation(chipPath: chipPath, chipLabel: "", offset: o)) != nil {
            throw GPIOFailure("cannot request lines on \(chipPath): Device or resource busy")
        }
        let r = Request(chipPath: chipPath, offsets: offsets, isInput: isInput, owner: self)
        requests[ObjectIdentifier(r)] = r
        return r
    }

    func released(_ r: Request) { releasedCount += 1 }

    /// Lets go of the fake's own references, so owners' releases can be observed.
    public func forgetRequests() { requests.removeAll() }

    /// A logical edge on the named line, as the kernel would report it.
    public func edge(line name: String, rising: Bool, atNanos t: Int64) throws {
        let l = try findLine(named: name, chipLabel: nil)
        guard let r = requests.values.first(where: { $0.isInput && $0.chipPath == l.chipPath && $0.offsets.contains(l.offset) }) else {
            throw GPIOFailure("line \(name) is not requested as an input")
        }
        r.inject(GPIOEdge(offset: l.offset, rising: rising, timestampNanos: t))
    }

    public func outputValue(line name: String) throws -> Bool? {
        let l = try findLine(named: name, chipLabel: nil)
        return requests.values.first { !$0.isInput && $0.chipPath == l.chipPath && $0.offsets.contains(l.offset) }?.values[l.offset]
    }
}
