import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// How long a connection may take and how many there may be (#31: an idle connection, or
/// half a header, stayed open for 300 s and more; at the descriptor limit the web app
/// answered nothing and spun a core). The request head must come within `headSeconds` of
/// connecting; a keep-alive connection closes after `idleSeconds` without a request (also
/// a request head begun and not finished, or an upload that stops); a response being
/// written (a page's event stream) is never cut. At most `maximum` connections are open:
/// the next wait in the kernel's queue (no accept fails, nothing spins), and reaching the
/// cap is one log line naming the address that holds the most. #47: one address holds at
/// most `perClient` of them (an eighth of the cap): past its share a new connection from it
/// is closed at once, so one stranger's 260 event streams or 300 half-sent heads leave room
/// for everyone else.
public struct ConnectionLimits: Sendable {
    public var headSeconds: Double = 10
    public var idleSeconds: Double = 60
    public var maximum: Int
    public var perClient: Int

    public init(headSeconds: Double = 10, idleSeconds: Double = 60, maximum: Int = ConnectionLimits.defaultMaximum(), perClient: Int? = nil) {
        self.headSeconds = headSeconds
        self.idleSeconds = idleSeconds
        self.maximum = maximum
        self.perClient = perClient ?? max(4, maximum / 8)
    }

    /// 256, or fewer when the descriptor limit is low: 64 are left for the store, the box's
    /// socket and the rest.
    public static func defaultMaximum() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 64 }
        return max(8, min(256, Int(min(limit.rlim_cur, 1 << 20)) - 64))
    }
}

/// Closes a connection whose first request head has not come within the deadline (a client
/// that connects and sends nothing, or sends half a header and stalls).
final class RequestHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let seconds: Double
    private var deadline: Scheduled<Void>?
    private var seenHead = false

    init(seconds: Double) { self.seconds = seconds }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard deadline == nil, !seenHead else { return }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !seenHead, case .head = unwrapInboundIn(data) {
            seenHead = true
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension RequestHeadDeadline: Sendable {}

/// #47: the connections each client address holds, shared by every connection's
/// `ClientShareHandler`: past `share` an address's new connection is refused.
final class ClientShares: Sendable {
    let share: Int
    private struct Table {
        var open: [String: Int] = [:]
        /// Addresses already warned about (again only after they fell to half their share).
        var warned: Set<String> = []
    }
    private let table = Mutex(Table())
    let logger: Logger

    init(share: Int, logger: Logger) {
        self.share = share
        self.logger = logger
    }

    /// Counts a connection of `client`; false (and nothing counted) when it holds its share.
    func take(_ client: String) -> Bool {
        let (taken, warn) = table.withLock { t -> (Bool, Bool) in
            let count = t.open[client, default: 0]
            guard count < share else { return (false, t.warned.insert(client).inserted) }
            t.open[client] = count + 1
            return (true, false)
        }
        if warn { logger.warning("an address holds its share of connections; its new ones are closed", metadata: ["client": "\(client)", "share": "\(share)"]) }
        return taken
    }

    func give(_ client: String) {
        table.withLock { t in
            let count = t.open[client, default: 1] - 1
            t.open[client] = count > 0 ? count : nil
            if count <= share / 2 { t.warned.remove(client) }
        }
    }

    /// The address holding the most connections now, for the cap's log line.
    var busiest: (client: String, count: Int)? {
        table.withLock { t in t.open.max { $0.value < $1.value }.map { ($0.key, $0.value) } }
    }
}

/// Counts its connection against the client's share, or closes it at once past the share.
final class ClientShareHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let shares: ClientShares
    private var counted: String?

    init(shares: ClientShares) { self.shares = shares }

    func handlerAdded(context: ChannelHandlerContext) {
        let client = context.channel.remoteAddress?.ipAddress ?? "-"
        if shares.take(client) { counted = client } else { context.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let counted { shares.give(counted) }
        counted = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Nothing from a refused connection reaches the router.
        guard counted != nil else { return }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension ClientShareHandler: Sendable {}

/// At most `maximum` connections; one warning when the cap is reached (again only after
/// the count fell to half), naming the address that holds the most.
struct ConnectionCap: AvailableConnectionsDelegate {
    let maximum: Int
    let logger: Logger
    let shares: ClientShares?
    var count = 0
    var warned = false

    init(maximum: Int, logger: Logger, shares: ClientShares? = nil) {
        self.maximum = maximum
        self.logger = logger
        self.shares = shares
    }

    mutating func connectionOpened() {
        count += 1
        if count >= maximum && !warned {
            warned = true
            var metadata: Logger.Metadata = ["cap": "\(maximum)"]
            if let busiest = shares?.busiest {
                metadata["busiest"] = "\(busiest.client)"
                metadata["its"] = "\(busiest.count)"
            }
            logger.warning("connections at the cap; new ones wait until one closes", metadata: metadata)
        }
    }

    mutating func connectionClosed() {
        count -= 1
        if count <= maximum / 2 { warned = false }
    }

    func isAcceptingNewConnections() -> Bool { count < maximum }
}
