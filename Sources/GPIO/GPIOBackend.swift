import CGPIOD
import Foundation

/// Where a named line lives.
public struct GPIOLineLocation: Equatable, Sendable {
    public var chipPath: String
    public var chipLabel: String
    public var offset: UInt32

    public init(chipPath: String, chipLabel: String, offset: UInt32) {
        self.chipPath = chipPath
        self.chipLabel = chipLabel
        self.offset = offset
    }
}

public enum GPIOBias: Sendable { case asIs, disabled, pullUp, pullDown }

/// One kernel edge: logical (with active-low, a press is rising), CLOCK_MONOTONIC time.
public struct GPIOEdge: Equatable, Sendable {
    public var offset: UInt32
    public var rising: Bool
    public var timestampNanos: Int64

    public init(offset: UInt32, rising: Bool, timestampNanos: Int64) {
        self.offset = offset
        self.rising = rising
        self.timestampNanos = timestampNanos
    }
}

public struct GPIOFailure: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Requested lines; released when the owner lets go of it.
public protocol GPIORequest: AnyObject {
    /// Descriptors to poll for edges (none for outputs).
    var pollDescriptors: [Int32] { get }
    func readEdges(from descriptor: Int32) throws -> [GPIOEdge]
    func setValue(_ value: Bool, offset: UInt32) throws
    /// Several lines of this request at once (an RGB LED changes colour in one step).
    func setValues(_ values: [(offset: UInt32, value: Bool)]) throws
    func value(offset: UInt32) throws -> Bool
}

extension GPIORequest {
    public func setValues(_ values: [(offset: UInt32, value: Bool)]) throws {
        for v in values { try setValue(v.value, offset: v.offset) }
    }
}

/// The version-neutral GPIO operations the box needs (libgpiod through `CGPIOD`, or a fake).
public protocol GPIOBackend {
    /// What drives the lines, for `doctor`: "libgpiod 2.2.1 (v2 API)", or the fake's name.
    var library: String { get }
    /// The line named `name` on the chip labelled `chipLabel` (nil: any chip), or a failure
    /// naming the chips that were searched.
    func findLine(named name: String, chipLabel: String?) throws -> GPIOLineLocation
    /// The consumer holding the line, or nil when it is free.
    func consumer(of line: GPIOLineLocation) throws -> String?
    func requestInputs(chipPath: String, offsets: [UInt32], activeLow: Bool, bias: GPIOBias, consumer: String) throws -> GPIORequest
    func requestOutputs(chipPath: String, offsets: [UInt32], activeLow: Bool, consumer: String) throws -> GPIORequest
}

/// libgpiod on the GPIO character devices.
public struct LiveGPIO: GPIOBackend {
    public init() {}

    /// "libgpiod 1.6.3 (v1 API)": the library loaded and the API the shim was compiled for.
    public static var libraryDescription: String {
        "libgpiod \(String(cString: qb_gpiod_version())) (v\(qb_gpiod_api()) API)"
    }

    public var library: String { Self.libraryDescription }

    public func findLine(named name: String, chipLabel: String?) throws -> GPIOLineLocation {
        var location = qb_line_location()
        var searched = [CChar](repeating: 0, count: 1024)
        let rc = name.withCString { n in
            (chipLabel ?? "").withCString { l in qb_find_line(n, l, &location, &searched, searched.count) }
        }
        guard rc == 0 else {
            let chips = String(decoding: searched.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw GPIOFailure("line \(name) not found (searched \(chips))")
        }
        return GPIOLineLocation(chipPath: Self.string(location.chip_path), chipLabel: Self.string(location.chip_label), offset: location.offset)
    }

    public func consumer(of line: GPIOLineLocation) throws -> String? {
        var location = Self.location(line)
        var consumer = [CChar](repeating: 0, count: 64)
        let used = qb_line_in_use(&location, &consumer, consumer.count)
        guard used >= 0 else { throw GPIOFailure("\(line.chipPath): cannot read line \(line.offset) (\(String(cString: strerror(errno))))") }
        guard used == 1 else { return nil }
        let name = String(decoding: consumer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "another process" : name
    }

    public func requestInputs(chipPath: String, offsets: [UInt32], activeLow: Bool, bias: GPIOBias, consumer: String) throws -> GPIORequest {
        let b: Int32 = switch bias {
        case .asIs: Int32(QB_BIAS_AS_IS)
        case .disabled: Int32(QB_BIAS_DISABLED)
        case .pullUp: Int32(QB_BIAS_PULL_UP)
        case .pullDown: Int32(QB_BIAS_PULL_DOWN)
        }
        return try LiveGPIORequest.make(chipPath) { error in
            qb_request_inputs(chipPath, offsets, offsets.count, activeLow ? 1 : 0, b, consumer, error, 256)
        }
    }

    public func requestOutputs(chipPath: String, offsets: [UInt32], activeLow: Bool, consumer: String) throws -> GPIORequest {
        try LiveGPIORequest.make(chipPath) { error in
            qb_request_outputs(chipPath, offsets, offsets.count, activeLow ? 1 : 0, consumer, error, 256)
        }
    }

    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func location(_ l: GPIOLineLocation) -> qb_line_location {
        var out = qb_line_location()
        withUnsafeMutableBytes(of: &out.chip_path) { raw in
            let bytes = Array(l.chipPath.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        out.offset = l.offset
        return out
    }
}

/// Owns one `qb_request`: released exactly once, when the request object goes away.
final class LiveGPIORequest: GPIORequest {
    let handle: OpaquePointer
    /// The edges a read brings, kept from one read to the next (a press's read allocates nothing
    /// before its light is set).
    private let events = UnsafeMutablePointer<qb_edge_event>.allocate(capacity: 16)

    private init(handle: OpaquePointer) {
        self.handle = handle
        events.initialize(repeating: qb_edge_event(), count: 16)
    }

    deinit {
        qb_release(handle)
        events.deallocate()
    }

    static func make(_ chipPath: String, _ request: (UnsafeMutablePointer<CChar>) -> OpaquePointer?) throws -> LiveGPIORequest {
        var error = [CChar](repeating: 0, count: 256)
        guard let handle = error.withUnsafeMutableBufferPointer({ request($0.baseAddress!) }) else {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw GPIOFailure(message.isEmpty ? "\(chipPath): cannot request lines" : message)
        }
        return LiveGPIORequest(handle: handle)
    }

    var pollDescriptors: [Int32] {
        var fds = [Int32](repeating: -1, count: 64)
        let n = qb_request_fds(handle, &fds, fds.count)
        return Array(fds.prefix(n))
    }

    func readEdges(from descriptor: Int32) throws -> [GPIOEdge] {
        let n = qb_read_events(handle, descriptor, events, 16)
        return try edges(n)
    }

    /// The edges, the first one's light set in the same C call when `lighting` covers it.
    func readEdges(from descriptor: Int32, lighting: PressLights?) throws -> (edges: [GPIOEdge], lit: Int?) {
        var lit: Int32 = -1
        let n = qb_read_events_lighting(handle, descriptor, events, 16, lighting?.table, &lit)
        return (try edges(n), lit >= 0 ? Int(lit) : nil)
    }

    private func edges(_ n: Int32) throws -> [GPIOEdge] {
        guard n >= 0 else { throw GPIOFailure("reading GPIO events failed: \(String(cString: strerror(errno)))") }
        return (0..<Int(n)).map { i in
            GPIOEdge(offset: events[i].offset, rising: events[i].rising != 0, timestampNanos: Int64(bitPattern: events[i].timestamp_ns))
        }
    }

    func setValue(_ value: Bool, offset: UInt32) throws {
        guard qb_set_value(handle, offset, value ? 1 : 0) == 0 else {
            throw GPIOFailure("setting GPIO line \(offset) failed: \(String(cString: strerror(errno)))")
        }
    }

    func setValues(_ values: [(offset: UInt32, value: Bool)]) throws {
        let offsets = values.map(\.offset)
        let levels = values.map { Int32($0.value ? 1 : 0) }
        guard qb_set_values(handle, offsets, levels, offsets.count) == 0 else {
            throw GPIOFailure("setting GPIO lines \(offsets) failed: \(String(cString: strerror(errno)))")
        }
    }

    func value(offset: UInt32) throws -> Bool {
        let v = qb_get_value(handle, offset)
        guard v >= 0 else { throw GPIOFailure("reading GPIO line \(offset) failed: \(String(cString: strerror(errno)))") }
        return v == 1
    }
}
