import Hummingbird
import NIOCore

/// The context of every request: Hummingbird's core plus the peer's address (for limits per
/// client and log lines; #47: never an identity, as loopback is any local user too).
public struct WebRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's address as limits count it ("-" when unknown, as in the in-process tests).
    var clientName: String { remoteAddress?.ipAddress ?? "-" }
}
