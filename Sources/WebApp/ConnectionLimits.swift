import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// How long a connection may take and how many there may be (#31: an idle connection, or
/// half a header, stayed open for 300 s and more; at the descriptor limit the web app
/// answered nothing and spun a core). The request head must come within `headSeconds` of
/// connecting; a keep-alive connection closes after `idleSeconds` without a request (also
/// a request head begun and not finished, or an upload that stops); a response being
/// written (a page's event stream) is never cut. At most `maximum` connections are open:
/// the next wait in the kernel's queue (no accept fails, nothing spins), and reaching the
/// cap is one log line.
public struct ConnectionLimits: Sendable {
    public var headSeconds: Double = 10
    public var idleSeconds: Double = 60
    public var maximum: Int

    public init(headSeconds: Double = 10, idleSeconds: Double = 60, maximum: Int = ConnectionLimits.defaultMaximum()) {
        self.headSeconds = headSeconds
        self.idleSeconds = idleSeconds
        self.maximum = maximum
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

/// At most `maximum` connections; one warning when the cap is reached (again only after
/// the count fell to half).
struct ConnectionCap: AvailableConnectionsDelegate {
    let maximum: Int
    let logger: Logger
    var count = 0
    var warned = false

    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    mutating func connectionOpened() {
        count += 1
        if count >= maximum && !warned {
            warned = true
            logger.warning("connections at the cap; new ones wait until one closes", metadata: ["cap": "\(maximum)"])
        }
    }

    mutating func connectionClosed() {
        count -= 1
        if count <= maximum / 2 { warned = false }
    }

    func isAcceptingNewConnections() -> Bool { count < maximum }
}
