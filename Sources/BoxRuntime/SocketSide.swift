import BoxProtocol
import QuestCore

/// The box's local socket as the daemon holds it: how it was asked to run it, the server
/// (nil: no socket) and what its clients hold.
struct SocketSide {
    let control: BoxDaemon.ControlOptions?
    var server: ControlServer?
    var holds = SocketHolds()
}

extension BoxDaemon {
    /// The local socket (`questbox watch`, the web app) and what the box says about itself.
    public struct ControlOptions: Sendable {
        public var socketPath: String
        public var maximumClients: Int
        /// Whether `press` may push buttons (simulated boards).
        public var allowPress: Bool
        /// The ALSA PCM in use (nil: silent), asked for each `box` status.
        public var soundDevice: @Sendable () -> String?
        /// Output a client may leave unread (beyond the kernel's buffer) before it is dropped.
        public var maximumQueuedBytes = 256 * 1024
        /// Places beyond `maximumClients` for the box's own user and root (the web app).
        public var reservedClients = 4
        /// A client that has not subscribed is closed after this long without a request.
        public var idleSeconds: Double = 10

        public init(socketPath: String, maximumClients: Int = 4, allowPress: Bool, soundDevice: @escaping @Sendable () -> String? = { nil }) {
            self.socketPath = socketPath
            self.maximumClients = maximumClients
            self.allowPress = allowPress
            self.soundDevice = soundDevice
        }
    }
}

/// Who holds what the socket started: the button check (until the last holder lets go or
/// leaves) and the PIN claim the box shows (its holder leaving ends it).
struct SocketHolds: Sendable {
    private(set) var buttonCheck: Set<Int32> = []
    private(set) var claim: (client: Int32, id: String)?

    mutating func holdButtonCheck(_ client: Int32) { buttonCheck.insert(client) }

    /// These clients let go of the button check; true when nobody holds it any more.
    mutating func releaseButtonCheck(_ clients: [Int32]) -> Bool {
        buttonCheck.subtract(clients)
        return buttonCheck.isEmpty
    }

    /// The check ended by itself (its time limit, a quest): nobody holds it.
    mutating func buttonCheckEnded() { buttonCheck.removeAll() }

    mutating func holdClaim(_ id: String, by client: Int32) { claim = (client, id) }

    /// The claim is over: its holder lets go.
    mutating func claimEnded(_ id: String) { if claim?.id == id { claim = nil } }

    /// The claim a departing client held, which ends with it.
    func claimHeld(byAnyOf clients: [Int32]) -> String? {
        guard let claim, clients.contains(claim.client) else { return nil }
        return claim.id
    }
}
