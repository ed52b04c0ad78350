import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// The web app's server: Hummingbird's `Application` with one difference. `Application` keeps
/// the `Date` header in a cache that a 1 s timer refreshes, so an idle box woke the web
/// process every second (about 6 context switches a second with its threads) with nobody
/// asking. Here the header is formatted when a response needs it, at most once a second, and
/// a web app with no page open sleeps until a request comes. Still so in Hummingbird 2.28.1
/// (#49: its `Application` runs `DateCache`, an `AsyncTimerSequence` of 1 s, as a service).
public struct WebServer<Responder: HTTPResponder>: ApplicationProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    public let responder: Responder
    public let configuration: ApplicationConfiguration
    public let logger: Logger
    public let limits: ConnectionLimits
    /// #47: each address's connections, one table for every connection of this server.
    let clientShares: ClientShares
    private let whenRunning: @Sendable (any Channel) async -> Void

    public init(
        responder: Responder, configuration: ApplicationConfiguration, logger: Logger, limits: ConnectionLimits = ConnectionLimits(),
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) {
        self.responder = responder
        self.configuration = configuration
        self.logger = logger
        self.limits = limits
        self.clientShares = ClientShares(share: limits.perClient, logger: logger)
        self.whenRunning = onServerRunning
    }

    /// HTTP/1.1 with the connection limits (#31).
    public var server: HTTPServerBuilder {
        let head = limits.headSeconds
        let shares = clientShares
        return .http1(configuration: .init(
            additionalChannelHandlers: [ClientShareHandler(shares: shares), RequestHeadDeadline(seconds: head)],
            idleTimeout: .nanoseconds(Int64(limits.idleSeconds * 1e9))))
    }

    @Sendable public func onServerRunning(_ channel: any Channel) async {
        await whenRunning(channel)
    }

    /// Serves until a graceful shutdown (SIGTERM/SIGINT through `runService`).
    public func run() async throws {
        let dateHeader = HTTPDateHeader()
        let responder = self.responder
        let logger = self.logger
        let serverName = configuration.serverName
        let serverConfiguration = ServerConfiguration(
            address: configuration.address, serverName: serverName, backlog: configuration.backlog,
            reuseAddress: configuration.reuseAddress,
            availableConnectionsDelegate: ConnectionCap(maximum: limits.maximum, logger: logger, shares: clientShares))
        let server = try self.server.buildServer(
            configuration: serverConfiguration, eventLoopGroup: eventLoopGroup, logger: logger
        ) { (request, responseWriter: consuming ResponseWriter, channel) in
            var requestLogger = logger
            requestLogger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
            let context = Responder.Context(source: .init(channel: channel, logger: requestLogger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                // The error middleware answers everything it knows; this is the last resort.
                requestLogger.debug("unanswered error", metadata: ["error.type": "\(error)"])
                response = Response(status: .internalServerError, body: .init())
            }
            response.headers[.date] = dateHeader.now()
            if let serverName { response.headers[.server] = serverName }
            // #31: a body too large is refused before it is read; a client that sends it
            // without waiting for 100-continue gets the answer, then the connection ends: its
            // writing side at once, and (#47) a lingering close, so the answer is not lost to
            // a reset while the client is still sending (`LingeringClose`).
            // The same for any refusal of a request that came with a body (a gate's 403, a
            // Host's 421): it may have been answered before its body was read, and a client
            // that writes it all before reading (Python's urllib) waited on a full window.
            let declared = request.headers[.contentLength].flatMap(Int.init) ?? 0
            let hasBody = declared > 0 || request.headers[.transferEncoding] != nil
            let tooLarge = response.status == .contentTooLarge || (hasBody && response.status.code >= 400)
            if tooLarge { response.headers[.connection] = "close" }
            do {
                try await responseWriter.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // Rethrowing the parser's error would make the channel write a second response.
                throw ResponseAlreadyStarted()
            }
            if tooLarge {
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.execute {
                    do {
                        try channel.pipeline.syncOperations.addHandler(LingeringClose(channel: channel), position: .first)
                    } catch {
                        channel.close(promise: nil)
                    }
                }
            }
        } onServerRunning: { channel in
            await self.onServerRunning(channel)
        }
        let group = ServiceGroup(configuration: .init(services: services + [server], logger: logger))
        try await group.run()
    }

    /// The channel closes without another response.
    struct ResponseAlreadyStarted: Error {}
}

/// #47: after a 413 the client may still be sending the body it did not wait to send. Closing
/// with its bytes unread makes the kernel send a reset, and a client still writing then loses
/// the answer it was sent (a 5 MB form on a busy machine read nothing). So what still comes
/// is read and dropped ahead of the HTTP decoder, and the connection ends once the client has
/// been quiet for `quiet`, or after `longest` whatever it sends (a flood holds it no longer).
final class LingeringClose: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    static let quiet = TimeAmount.milliseconds(500)
    static let longest = TimeAmount.seconds(10)

    private let channel: Channel
    private var quietClose: Scheduled<Void>?

    init(channel: Channel) { self.channel = channel }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = self.channel
        context.eventLoop.scheduleTask(in: Self.longest) { channel.close(promise: nil) }
        waitForQuiet(context)
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        waitForQuiet(context)  // dropped: never reaches the HTTP decoder
    }

    func channelReadComplete(context: ChannelHandlerContext) { context.read() }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { context.close(promise: nil) }
    }

    private func waitForQuiet(_ context: ChannelHandlerContext) {
        quietClose?.cancel()
        let channel = self.channel
        quietClose = context.eventLoop.scheduleTask(in: Self.quiet) { channel.close(promise: nil) }
    }
}

/// The `Date` header (RFC 9110 IMF-fixdate), formatted when a response needs it and kept
/// for the rest of that second. Wall time: the header is a calendar fact.
final class HTTPDateHeader: Sendable {
    private let last = Mutex<(second: Int, text: String)>((Int.min, ""))

    func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &time)
        let second = Int(time.tv_sec)
        return last.withLock { last in
            if last.second != second { last = (second, Self.format(epochSeconds: second)) }
            return last.text
        }
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Thu, 01 Jan 1970 00:00:00 GMT` for 0.
    static func format(epochSeconds: Int) -> String {
        var seconds = time_t(epochSeconds)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil,
              weekdays.indices.contains(Int(parts.tm_wday)), months.indices.contains(Int(parts.tm_mon))
        else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
