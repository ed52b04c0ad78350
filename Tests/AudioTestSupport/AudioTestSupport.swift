import Audio
import Foundation
import Logging
import Synchronization

// What the audio tests and BoxRuntime's voice tests (RenderedSpeechTests) share.

/// A logger that says nothing, for tests that do not read the log.
public let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

/// Collects log lines so tests can check what the engine said, one line an event
/// ("level message key=value …").
public final class LogLines: @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    public init() {}
    public var all: [String] { lines.withLock { $0 } }
    public func append(_ s: String) { lines.withLock { $0.append(s) } }
    public var logger: Logger {
        Logger(label: "test") { _ in CollectingHandler(sink: self) }
    }
}

public struct CollectingHandler: LogHandler {
    let sink: LogLines
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    public func log(event: LogEvent) {
        let meta = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.append("\(event.level) \(event.message) \(meta)")
    }
}

/// A recognisable test clip: a ramp that never repeats a value, mono.
public func rampClip(frames: Int, start: Int16 = 100, step: Int16 = 3) -> SoundClip {
    SoundClip(samples: (0..<frames).map { start &+ Int16(truncatingIfNeeded: $0) &* step }, channels: 1)
}

/// The 16-bit little-endian samples a `file:` PCM wrote.
public func samples(atPath path: String) throws -> [Int16] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return data.withUnsafeBytes { raw in (0..<(data.count / 2)).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self)) } }
}
