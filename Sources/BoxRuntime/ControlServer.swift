import BoxProtocol
import CEventLoop
import Foundation
import Logging

/// The box's local socket, served from the daemon's own poll loop: no thread, and no
/// wake-up unless a client connects, sends or can take queued output. Each client has a
/// bounded output queue; one that falls behind is dropped (a slow client never blocks the
/// box), and a full house refuses the next client with one line.
///
/// #31: idle connections cannot shut the box's own services out. A client that has not
/// subscribed and sends no request for `idleSeconds` is closed (one wake-up at its
/// deadline, none while there is no such client), and `reservedClients` places beyond the
/// limit are kept for peers running as the box's own user or root (the web app, a
/// parent's `sudo -u questbox questbox …`).
final class ControlServer {
    struct Client {
        var input: [UInt8] = []
        /// Skipping an over-long line up to its newline.
        var discarding = false
        var output: [UInt8] = []
        var subscribed = false
        /// CLOCK_MONOTONIC nanoseconds of its connection or last complete request.
        var lastRequestAt: UInt64 = 0
        /// In one of the reserved places.
        var reserved = false
    }

    /// Places beyond `maximumClients` for the box's own user and root.
    let reservedClients: Int
    /// How long a client that has not subscribed may stay without a request.
    let idleNanos: UInt64

    let path: String
    let listenFD: Int32
    let maximumClients: Int
    let maximumQueuedBytes: Int
    let logger: Logger
    private(set) var clients: [Int32: Client] = [:]
    /// Clients gone since `takeDeparted()` was last asked (the box lets go what they held).
    private var departed: [Int32] = []

    init(
        path: String, maximumClients: Int, reservedClients: Int = 4, idleSeconds: Double = 10, maximumQueuedBytes: Int = 256 * 1024,
        logger: Logger
    ) throws {
        self.path = path
        self.maximumClients = maximumClients
        self.reservedClients = reservedClients
        self.idleNanos = UInt64(max(idleSeconds, 0.05) * 1e9)
        self.maximumQueuedBytes = maximumQueuedBytes
        self.logger = logger
        let fd = qb_unix_listen(path, 0o660, 8)
        guard fd >= 0 else {
            let reason = switch -fd {
            case EADDRINUSE: "another box is running and listening there"
            case EEXIST: "a file that is not a socket is in the way"
            case ENAMETOOLONG: "the path is longer than a socket path may be (107 bytes)"
            default: String(cString: strerror(-fd))
            }
            throw BoxProtocolError("\(path): cannot open the box's socket (\(reason))")
        }
        listenFD = fd
    }

    deinit {
        for fd in clients.keys { close(fd) }
        close(listenFD)
        unlink(path)
    }

    /// The descriptors to poll, with whether each has output waiting.
    var pollEntries: [(fd: Int32, wantWrite: Bool)] {
        [(listenFD, false)] + clients.map { ($0.key, !$0.value.output.isEmpty) }
    }

    func owns(_ fd: Int32) -> Bool { fd == listenFD || clients[fd] != nil }

    var subscriberCount: Int { clients.values.filter(\.subscribed).count }
    /// Kept as a flag: the box asks before every effect, and with nobody listening it must do
    /// no work at all (under emulation every microsecond at the reveal shows as audio stalls).
    private(set) var hasSubscribers = false

    /// What one read brought, in order: complete request lines and over-long ones.
    enum Received {
        case line([UInt8])
        case tooLong
    }

    /// Handles readiness of one of `pollEntries`. Complete request lines go to `handle` with
    /// the client's descriptor; the reply is queued to the client (`subscribe`, `button-check`
    /// and `claim` mark the client a subscriber first: a check is told its presses, a claim
    /// how it goes).
    func service(_ fd: Int32, ready: Int32, hello: () -> BoxMessage, handle: (BoxRequest, Int32) -> BoxMessage) {
        if fd == listenFD { return acceptAll(hello: hello) }
        if ready & 2 != 0 { flush(fd) }
        guard ready & 1 != 0, clients[fd] != nil else { return }
        var chunk = [UInt8](repeating: 0, count: 4_096)
        let n = read(fd, &chunk, chunk.count)
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard n > 0 else { return drop(fd, reason: nil) }
        for received in split(chunk[..<n], into: fd) {
            switch received {
            case .tooLong:
                send(.refusal(BoxProtocolError("request longer than \(BoxProtocol.maximumLineBytes) bytes")), to: fd)
            case .line(let line):
                clients[fd]?.lastRequestAt = Self.monotonicNow()
                // A line that is not a request gets a reply saying so, as every line does
                // (docs/box-protocol.md); an empty one too.
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
                    send(.refusal(BoxProtocolError("an empty line is not a request")), to: fd)
                    continue
                }
                switch BoxRequest.parse(line) {
                case .failure(let error):
                    send(.refusal(error), to: fd)
                case .success(let request):
                    if request.command == "subscribe" || request.command == "button-check" || request.command == "claim" {
                        clients[fd]?.subscribed = true
                        hasSubscribers = true
                    }
                    send(handle(request, fd), to: fd)
                }
            }
        }
    }

    /// Adds `bytes` to the client's unfinished line and cuts out what is complete. A line
    /// over the limit is refused once and skipped up to its newline. The client is taken out
    /// of the table meanwhile, so appending never copies its buffer.
    private func split(_ bytes: ArraySlice<UInt8>, into fd: Int32) -> [Received] {
        guard var client = clients.removeValue(forKey: fd) else { return [] }
        defer { clients[fd] = client }
        var received: [Received] = []
        var rest = bytes
        while let end = rest.firstIndex(of: 0x0A) {
            let piece = rest[..<end]
            if client.discarding {
                client.discarding = false
            } else if client.input.count + piece.count > BoxProtocol.maximumLineBytes {
                received.append(.tooLong)
            } else {
                received.append(.line(client.input + piece))
            }
            client.input.removeAll(keepingCapacity: true)
            rest = rest[(end + 1)...]
        }
        if !client.discarding {
            if client.input.count + rest.count > BoxProtocol.maximumLineBytes {
                client.input.removeAll()
                client.discarding = true
                received.append(.tooLong)
            } else {
                client.input += rest
            }
        }
        return received
    }

    /// Pushes an event to every subscriber.
    func broadcast(_ message: BoxMessage) {
        guard hasSubscribers else { return }
        let line = [UInt8](message.line())
        // Keys first: iterating the table itself would hold its queues while they grow.
        for fd in clients.compactMap({ $0.value.subscribed ? $0.key : nil }) { enqueue(line, to: fd) }
    }

    func send(_ message: BoxMessage, to fd: Int32) {
        enqueue([UInt8](message.line()), to: fd)
    }

    private func enqueue(_ line: [UInt8], to fd: Int32) {
        guard let queued = clients[fd]?.output.count else { return }
        if queued + line.count > maximumQueuedBytes {
            return drop(fd, reason: "fell behind by \(queued) bytes")
        }
        clients[fd]?.output += line  // in place: the queue is not copied
        flush(fd)
    }

    /// Writes what the socket takes now, without blocking.
    private func flush(_ fd: Int32) {
        guard clients[fd]?.output.isEmpty == false else { return }
        let n = clients[fd]?.output.withUnsafeBytes { qb_send(fd, $0.baseAddress, $0.count) } ?? 0
        if n == -Int(EAGAIN) || n == -Int(EINTR) { return }
        guard n > 0 else { return drop(fd, reason: nil) }
        clients[fd]?.output.removeFirst(n)
    }

    private func acceptAll(hello: () -> BoxMessage) {
        while true {
            let fd = qb_unix_accept(listenFD)
            guard fd >= 0 else { return }
            var reserved = false
            if clients.values.filter({ !$0.reserved }).count >= maximumClients {
                let reservedInUse = clients.values.filter(\.reserved).count
                guard reservedInUse < reservedClients, qb_peer_is_trusted(fd) == 1 else {
                    var refusal = BoxMessage(type: "error")
                    refusal.error = "the box serves at most \(maximumClients) clients at once; try again later"
                    let line = [UInt8](refusal.line())
                    _ = line.withUnsafeBytes { qb_send(fd, $0.baseAddress, $0.count) }
                    close(fd)
                    logger.warning("socket client refused", metadata: ["clients": "\(clients.count)", "limit": "\(maximumClients)"])
                    continue
                }
                reserved = true
            }
            clients[fd] = Client(lastRequestAt: Self.monotonicNow(), reserved: reserved)
            logger.debug("socket client connected", metadata: ["clients": "\(clients.count)"])
            send(hello(), to: fd)
        }
    }

    /// When the next client that has not subscribed runs out of time (nil: none).
    var idleDeadline: UInt64? {
        clients.values.lazy.filter { !$0.subscribed }.map { $0.lastRequestAt + self.idleNanos }.min()
    }

    /// Closes the clients that have not subscribed and sent no request in time.
    func closeIdle(now: UInt64 = ControlServer.monotonicNow()) {
        for (fd, client) in clients where !client.subscribed && now >= client.lastRequestAt + idleNanos {
            drop(fd, reason: "sent no request for \(idleNanos / 1_000_000_000) s")
        }
    }

    static func monotonicNow() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// The descriptors of clients that left since the last call. Asked right after the
    /// loop's round of `service` calls, before a reused descriptor can send a request.
    func takeDeparted() -> [Int32] {
        defer { departed.removeAll() }
        return departed
    }

    private func drop(_ fd: Int32, reason: String?) {
        guard clients.removeValue(forKey: fd) != nil else { return }
        close(fd)
        departed.append(fd)
        hasSubscribers = clients.values.contains(where: \.subscribed)
        if let reason {
            logger.warning("socket client dropped", metadata: ["reason": "\(reason)", "clients": "\(clients.count)"])
        } else {
            logger.debug("socket client left", metadata: ["clients": "\(clients.count)"])
        }
    }
}
