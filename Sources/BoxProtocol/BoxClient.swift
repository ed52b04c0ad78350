import CEventLoop
import Foundation

/// Where the running box's socket is.
public enum BoxSocketPath {
    public static let fileName = "questbox.sock"
    /// systemd's `RuntimeDirectory=questbox`.
    public static let systemPath = "/run/questbox/questbox.sock"

    /// Where the box listens: $QUESTBOX_SOCKET, else the service's runtime directory, else
    /// beside the database in the data directory.
    public static func forDaemon(dataDirectory: String, environment: [String: String]) -> String {
        if let explicit = environment["QUESTBOX_SOCKET"], !explicit.isEmpty { return explicit }
        if let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first, !runtime.isEmpty {
            return "\(runtime)/\(fileName)"
        }
        return (dataDirectory as NSString).appendingPathComponent(fileName)
    }

    /// Where a client looks: $QUESTBOX_SOCKET, else beside the database, else the service's.
    public static func forClient(dataDirectory: String, environment: [String: String], exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String {
        if let explicit = environment["QUESTBOX_SOCKET"], !explicit.isEmpty { return explicit }
        let beside = (dataDirectory as NSString).appendingPathComponent(fileName)
        if exists(beside) { return beside }
        return exists(systemPath) ? systemPath : beside
    }
}

/// A connection to the running box: requests with their replies, and the event stream.
/// Owns its descriptor (closed in `deinit`).
public final class BoxClient {
    public let path: String
    public private(set) var hello: BoxMessage
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1

    /// Connects and reads the box's hello line (within `timeoutMs`).
    public init(path: String, timeoutMs: Int32 = 3_000) throws {
        self.path = path
        let fd = qb_unix_connect(path)
        guard fd >= 0 else {
            let reason = fd == -ENOENT || fd == -ECONNREFUSED ? "the box is not running" : String(cString: strerror(-fd))
            throw BoxProtocolError("\(path): cannot reach the box (\(reason))")
        }
        self.fd = fd
        hello = BoxMessage(type: "none")
        let first = try readMessage(timeoutMs: timeoutMs)
        guard let first else { throw BoxProtocolError("\(path): the box closed the connection") }
        if first.type == "error" { throw BoxProtocolError("\(path): \(first.error ?? "refused")") }
        guard first.type == "hello", first.protocol == BoxProtocol.version else {
            throw BoxProtocolError("\(path): the box speaks protocol \(first.protocol.map(String.init) ?? "?"), this client \(BoxProtocol.version)")
        }
        hello = first
    }

    deinit { close(fd) }

    /// Sends a request and waits for its reply; events that arrive first go to `onEvent`.
    public func request(_ request: BoxRequest, timeoutMs: Int32 = 5_000, onEvent: (BoxMessage) -> Void = { _ in }) throws -> BoxMessage {
        var request = request
        let id = request.id ?? "c\(nextID)"
        nextID += 1
        request.id = id
        try send(request)
        while let message = try readMessage(timeoutMs: timeoutMs) {
            if message.type == "reply" && (message.id == id || message.id == nil) { return message }
            onEvent(message)
        }
        throw BoxProtocolError("\(path): the box closed the connection")
    }

    public func send(_ request: BoxRequest) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try write(try encoder.encode(request) + Data([0x0A]))
    }

    /// Raw bytes (tests send malformed lines this way).
    public func write(_ data: Data) throws {
        var sent = 0
        let bytes = [UInt8](data)
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { qb_send(fd, $0.baseAddress, $0.count) }
            if n == -Int(EAGAIN) || n == -Int(EINTR) {
                var fds = [fd]
                var want: [Int32] = [1]
                var ready: [Int32] = [0]
                _ = qb_poll(&fds, &want, 1, 1_000, &ready)
                continue
            }
            guard n > 0 else { throw BoxProtocolError("\(path): the box closed the connection") }
            sent += n
        }
    }

    /// The next message, or nil when the box closed the connection. `timeoutMs` < 0 waits
    /// for ever; a timeout throws.
    public func readMessage(timeoutMs: Int32) throws -> BoxMessage? {
        guard let line = try readLine(timeoutMs: timeoutMs) else { return nil }
        do {
            return try BoxMessage.decode(line)
        } catch {
            throw BoxProtocolError("\(path): the box sent a line this client cannot read")
        }
    }

    /// Wakes a thread blocked reading this connection (from any thread; `next` then says
    /// `.closed`). The descriptor stays open until this client is released.
    public static func interrupt(descriptor: Int32) { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
    public var descriptor: Int32 { fd }

    public enum Incoming {
        case message(BoxMessage)
        case timedOut
        case closed
    }

    /// The next message, or word that none came within `timeoutMs` (a relay's chance to see
    /// whether anyone still listens), or that the box closed the connection.
    public func next(timeoutMs: Int32) throws -> Incoming {
        if !buffer.contains(0x0A) {
            var fds = [fd]
            var ready: [Int32] = [0]
            if qb_poll(&fds, nil, 1, timeoutMs, &ready) == 0 { return .timedOut }
        }
        return try readMessage(timeoutMs: timeoutMs).map(Incoming.message) ?? .closed
    }

    /// The next raw line without its newline (what `watch --json` prints).
    public func readLine(timeoutMs: Int32) throws -> Data? {
        while true {
            if let end = buffer.firstIndex(of: 0x0A) {
                let line = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                return line
            }
            var fds = [fd]
            var ready: [Int32] = [0]
            let n = qb_poll(&fds, nil, 1, timeoutMs, &ready)
            guard n > 0 else { throw BoxProtocolError("\(path): no answer from the box within \(timeoutMs) ms") }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let got = read(fd, &chunk, chunk.count)
            if got < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard got > 0 else { return nil }
            buffer += chunk[..<got]
            guard buffer.count <= 16 * BoxProtocol.maximumLineBytes else { throw BoxProtocolError("\(path): a line from the box is too long") }
        }
    }
}
