import CMosquitto
import Foundation
import Synchronization

/// One connection to an MQTT broker through libmosquitto (MQTT 3.1.1 or 5, TLS, user name and
/// password, a last will). libmosquitto's own thread does the network and reconnects with
/// back-off; this object never blocks its caller on the network: `publish` hands a message
/// to that thread or drops it (not connected, or too many unacknowledged), and what the
/// broker sends waits in an inbox the caller drains. Owns the libmosquitto handle (freed in
/// `close`, or when released).
public final class MQTTConnection: @unchecked Sendable {
    public struct Options: Sendable {
        /// The protocol spoken: 3.1.1 (every broker) or 5.
        public enum Version: String, Sendable { case v311 = "3.1.1", v5 = "5" }

        public var host: String
        public var port: Int
        public var tls: Bool
        /// A CA certificate (PEM) to trust instead of the system's.
        public var caFile: String?
        public var username: String?
        public var password: String?
        public var clientID: String
        /// Retained by the broker and published by it when this connection vanishes.
        public var will: (topic: String, payload: String)?
        public var keepAliveSeconds: Int32 = 30
        /// Subscribed (QoS 1) at every connect, before the connection counts as connected: a
        /// reply to what this client publishes can never come before its subscription.
        public var subscriptions: [String] = []
        public var version: Version = .v311

        public init(host: String, port: Int, tls: Bool, caFile: String? = nil, username: String? = nil, password: String? = nil, clientID: String, will: (topic: String, payload: String)? = nil) {
            self.host = host
            self.port = port
            self.tls = tls
            self.caFile = caFile
            self.username = username
            self.password = password
            self.clientID = clientID
            self.will = will
        }
    }

    public enum Incoming: Equatable, Sendable {
        case connected
        /// The broker refused or dropped the connection (its words); libmosquitto tries again.
        case disconnected(String)
        case message(topic: String, payload: [UInt8], retained: Bool)
    }

    /// Messages at QoS 1 the broker has not acknowledged yet beyond which `publish` drops:
    /// a broker that stops reading (SIGSTOP) costs at most this many messages of memory.
    public static let maximumInFlight = 64
    /// What the inbox holds at most (a flood of messages on the box's topics is cut here).
    public static let maximumInbox = 256
    /// The largest payload kept (the box's own topics carry a few hundred bytes; a 5 MB one,
    /// 40 times over, took the link past its unit's memory limit).
    public static let maximumPayload: Int32 = 16 * 1024

    private let handle: OpaquePointer
    private let subscriptions: [String]
    private let state = Mutex(State())
    private struct State {
        var inbox: [Incoming] = []
        var dropped = 0
        var connected = false
        var inFlight = 0
        var closed = false
    }

    private static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    public init(_ options: Options) throws {
        guard Self.libraryReady else { throw MQTTError("libmosquitto did not start") }
        guard let handle = mosquitto_new(options.clientID, true, nil) else { throw MQTTError("libmosquitto: no memory for a client") }
        self.handle = handle
        subscriptions = options.subscriptions
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, options.version == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311)
        // A state change leaves at once: with Nagle's algorithm on, a publish waited for the
        // broker's delayed ACK of the last small packet (40 ms, measured with 5 boxes).
        _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_reconnect_delay_set(handle, 1, 30, true)
        _ = mosquitto_max_inflight_messages_set(handle, UInt32(Self.maximumInFlight))
        do {
            if let username = options.username {
                try check(mosquitto_username_pw_set(handle, username, options.password), "user name")
            }
            if let will = options.will {
                try check(mosquitto_will_set(handle, will.topic, Int32(will.payload.utf8.count), will.payload, 1, true), "last will")
            }
            if options.tls {
                if let ca = options.caFile {
                    try check(mosquitto_tls_set(handle, ca, nil, nil, nil, nil), "TLS CA file \(ca)")
                } else {
                    _ = mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
                }
            }
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
        mosquitto_connect_callback_set(handle) { _, object, rc in
            MQTTConnection.from(object)?.connectionChanged(connected: rc == 0, reason: rc == 0 ? "" : String(cString: mosquitto_connack_string(rc)))
        }
        mosquitto_disconnect_callback_set(handle) { _, object, rc in
            MQTTConnection.from(object)?.connectionChanged(connected: false, reason: rc == 0 ? "closed" : String(cString: mosquitto_strerror(rc)))
        }
        mosquitto_publish_callback_set(handle) { _, object, _ in
            MQTTConnection.from(object)?.state.withLock { $0.inFlight = max(0, $0.inFlight - 1) }
        }
        mosquitto_message_callback_set(handle) { _, object, message in
            guard let connection = MQTTConnection.from(object), let message = message?.pointee, let topic = message.topic else { return }
            // An outsized payload is counted and dropped unread; `receive` copies a message
            // only when the inbox has room for it.
            guard message.payloadlen <= MQTTConnection.maximumPayload else {
                connection.state.withLock { $0.dropped += 1 }
                return
            }
            connection.receive(.message(
                topic: String(cString: topic),
                payload: message.payload.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? [],
                retained: message.retain))
        }
        // The network runs on a thread of this connection's own: connect (blocking: with
        // libmosquitto 2.0.21 and OpenSSL 3.5, as on Debian trixie, the non-blocking connect's
        // TLS handshake failed with EPROTO, and libmosquitto's own thread then stopped for
        // good), then libmosquitto's loop, which reconnects by itself; whatever ends it, this
        // thread connects again after 1 s doubling to 30 s, until `close`.
        mosquitto_threaded_set(handle, true)
        let host = options.host, port = Int32(options.port), keepAlive = options.keepAliveSeconds
        let thread = Thread { [self] in network(host: host, port: port, keepAlive: keepAlive) }
        thread.name = "mqtt"
        thread.start()
    }

    private var isClosed: Bool { state.withLock { $0.closed } }

    private func network(host: String, port: Int32, keepAlive: Int32) {
        var delay = 1.0
        while !isClosed {
            let rc = mosquitto_connect(handle, host, port, keepAlive)
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                delay = 1
                let ended = mosquitto_loop_forever(handle, 1_000, 1)
                if isClosed { break }
                receive(.disconnected(Self.words(ended)))
            } else if !isClosed {
                receive(.disconnected(Self.words(rc)))
            }
            state.withLock { $0.connected = false }
            // The wait, cut short by `close`.
            var waited = 0.0
            while waited < delay, !isClosed {
                usleep(100_000)
                waited += 0.1
            }
            delay = min(delay * 2, 30)
        }
        mosquitto_destroy(handle)
    }

    deinit { close() }

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTConnection? {
        object.map { Unmanaged<MQTTConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private func check(_ rc: Int32, _ what: String) throws {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError("\(what): \(Self.words(rc))") }
    }

    static func words(_ rc: Int32) -> String {
        rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
    }

    private func connectionChanged(connected: Bool, reason: String) {
        if connected {
            for pattern in subscriptions { mosquitto_subscribe(handle, nil, pattern, 1) }
        }
        state.withLock {
            $0.connected = connected
            if connected { $0.inFlight = 0 }
        }
        receive(connected ? .connected : .disconnected(reason))
    }

    /// Made (copied) only when the inbox has room: a flood beyond it costs a count, not a copy.
    private func receive(_ incoming: @autoclosure () -> Incoming) {
        state.withLock {
            if $0.inbox.count < Self.maximumInbox { $0.inbox.append(incoming()) } else { $0.dropped += 1 }
        }
    }

    public var isConnected: Bool { state.withLock { $0.connected } }

    /// How much arrived since the last `drain`: the inbox's entries and the messages dropped
    /// (a look that takes nothing, for a test waiting on a flood).
    public var undrained: Int { state.withLock { $0.inbox.count + $0.dropped } }

    /// What the broker sent since the last call, and how many messages the full inbox dropped.
    public func drain() -> (incoming: [Incoming], dropped: Int) {
        state.withLock { s in
            defer { s.inbox.removeAll(keepingCapacity: true); s.dropped = 0 }
            return (s.inbox, s.dropped)
        }
    }

    /// Hands a message to the network thread (QoS 1); false when it was dropped: not
    /// connected, or `maximumInFlight` messages wait for the broker.
    @discardableResult
    public func publish(topic: String, payload: String, retain: Bool) -> Bool {
        let admitted = state.withLock { s -> Bool in
            guard s.connected, !s.closed, s.inFlight < Self.maximumInFlight else { return false }
            s.inFlight += 1
            return true
        }
        guard admitted else { return false }
        let rc = mosquitto_publish(handle, nil, topic, Int32(payload.utf8.count), payload, 1, retain)
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            state.withLock { $0.inFlight = max(0, $0.inFlight - 1) }
            return false
        }
        return true
    }

    /// Disconnects cleanly (the broker does not publish the will; publish "offline" first);
    /// the network thread ends on its own (a connect under way finishes first). Safe to call twice.
    public func close() {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true; s.connected = false }
            return !s.closed
        }
        guard first else { return }
        // The network thread sees it, leaves libmosquitto's loop and frees the handle.
        mosquitto_disconnect(handle)
    }
}

public struct MQTTError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
