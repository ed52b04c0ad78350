import Foundation
import HomeLinkTestSupport
import MQTT
import Testing

/// The link's MQTT connection (libmosquitto on a thread of its own) against Debian's
/// Mosquitto: what it carries, and the bounds that keep a flood from the house small.
@Suite("MQTT: the link's connection to a real Mosquitto", .serialized)
struct MQTTConnectionTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "questbox-tests-mqtt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func connect(_ broker: Broker, _ name: String, subscriptions: [String] = []) throws -> MQTTConnection {
        var options = MQTTConnection.Options(host: "127.0.0.1", port: broker.port, tls: false, clientID: "\(name)-\(UUID().uuidString.prefix(8))")
        options.subscriptions = subscriptions
        let connection = try MQTTConnection(options)
        #expect(wait { connection.isConnected }, "\(name) did not connect")
        return connection
    }

    func wait(seconds: Double = 10, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if done() { return true }
            usleep(20_000)
        }
        return done()
    }

    /// Everything `connection` got within `seconds` or until `count` messages are in.
    func messages(_ connection: MQTTConnection, count: Int, seconds: Double = 10) -> (payloads: [String], dropped: Int) {
        var payloads: [String] = [], dropped = 0
        _ = wait(seconds: seconds) {
            let (incoming, lost) = connection.drain()
            dropped += lost
            for case .message(_, let payload, _) in incoming { payloads.append(String(decoding: payload, as: UTF8.self)) }
            return payloads.count + dropped >= count
        }
        return (payloads, dropped)
    }

    @Test("what one client publishes (QoS 1) another subscribed gets, in order, retained ones too")
    func roundTrip() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let broker = try Broker(directory: folder)
        let publisher = try connect(broker, "publisher")
        defer { publisher.close() }
        #expect(publisher.publish(topic: "questbox/test/kept", payload: "retained", retain: true))
        let subscriber = try connect(broker, "subscriber", subscriptions: ["questbox/test/#"])
        defer { subscriber.close() }
        let kept = messages(subscriber, count: 1)
        #expect(kept.payloads == ["retained"], "a retained message reaches a later subscriber")
        for i in 0..<20 { #expect(publisher.publish(topic: "questbox/test/n", payload: "\(i)", retain: false)) }
        let got = messages(subscriber, count: 20)
        #expect(got.payloads == (0..<20).map(String.init) && got.dropped == 0, "\(got)")
    }

    @Test("a flood past the inbox's 256 is cut and counted, never held; a payload over 16 KiB is dropped unread")
    func bounds() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let broker = try Broker(directory: folder)
        let subscriber = try connect(broker, "subscriber", subscriptions: ["questbox/flood/#"])
        defer { subscriber.close() }
        let publisher = try connect(broker, "publisher")
        defer { publisher.close() }
        let flood = MQTTConnection.maximumInbox + 144
        var sent = 0
        // At most 64 wait for the broker's acknowledgement: publish refuses beyond them.
        _ = wait(seconds: 20) {
            while sent < flood, publisher.publish(topic: "questbox/flood/junk", payload: "junk \(sent)", retain: false) { sent += 1 }
            return sent == flood
        }
        #expect(sent == flood)
        // Every one in the subscriber's inbox or counted (and its `.connected`), none drained yet.
        #expect(wait { subscriber.undrained >= flood + 1 }, "\(subscriber.undrained) of \(flood) arrived")
        let (incoming, dropped) = subscriber.drain()
        // The inbox holds the connection's own news too (`.connected`): 256 entries in all.
        let kept = incoming.filter { if case .message = $0 { true } else { false } }.count
        #expect(incoming.count == MQTTConnection.maximumInbox, "the inbox held \(incoming.count)")
        #expect(kept + dropped == flood, "\(kept) kept + \(dropped) dropped of \(flood)")
        #expect(subscriber.drain().incoming.isEmpty, "drained once")

        let big = String(repeating: "x", count: Int(MQTTConnection.maximumPayload) + 1)
        #expect(publisher.publish(topic: "questbox/flood/big", payload: big, retain: false))
        #expect(publisher.publish(topic: "questbox/flood/after", payload: "small", retain: false))
        let after = messages(subscriber, count: 2)
        #expect(after.payloads == ["small"] && after.dropped == 1, "\(after.payloads.map(\.count)) dropped \(after.dropped)")
    }

    @Test("with no broker nothing is sent and publish says so; close twice is safe")
    func noBroker() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let broker = try Broker(directory: folder)
        let port = broker.port
        broker.stop()
        let connection = try MQTTConnection(MQTTConnection.Options(host: "127.0.0.1", port: port, tls: false, clientID: "alone"))
        usleep(300_000)
        #expect(!connection.isConnected)
        #expect(!connection.publish(topic: "questbox/test", payload: "lost", retain: false))
        connection.close()
        connection.close()
    }
}
