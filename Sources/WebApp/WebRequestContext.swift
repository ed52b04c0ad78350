import Hummingbird
import NIOCore

/// The context of every request: Hummingbird's core plus the peer's address, so that what
/// only the box itself may see (the set-up code on its own kiosk screen) can tell a page
/// opened on the box from one opened across the network.
public struct WebRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// True for a connection from this machine (127.0.0.0/8 or ::1); false when unknown.
    var isFromThisMachine: Bool {
        guard let address = remoteAddress?.ipAddress else { return false }
        return address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}
