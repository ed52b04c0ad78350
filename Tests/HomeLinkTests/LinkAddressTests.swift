import Foundation
import HomeLink
import QuestStore
import Testing

@Suite("#34: the house's addresses and topics")
struct LinkAddressTests {
    @Test("a broker's address: mqtt:// and mqtts:// with their ports, IPv6, and one-line refusals")
    func brokerAddresses() throws {
        #expect(try BrokerAddress.parse("mqtt://homeassistant.local").get() == BrokerAddress(host: "homeassistant.local", port: 1883, tls: false))
        #expect(try BrokerAddress.parse("mqtts://broker.example:8884/").get() == BrokerAddress(host: "broker.example", port: 8884, tls: true))
        #expect(try BrokerAddress.parse("mqtts://10.0.0.2").get().port == 8883)
        #expect(try BrokerAddress.parse("mqtt://[fd00::1]:1884").get() == BrokerAddress(host: "fd00::1", port: 1884, tls: false))
        let refused: [(String, String)] = [
            ("http://x", "starts with neither"), ("mqtt://", "no host name"), ("mqtt://a:0", "port"), ("mqtt://a:65536", "port"),
            ("mqtt://user:pw@host", "user name"), ("mqtt://a b", "host name"), ("mqtt://[fd00::1", "closing ]"), ("mqtt://host/path", "host name"),
        ]
        for (text, words) in refused {
            guard case .failure(let problem) = BrokerAddress.parse(text) else {
                Issue.record("\(text) was taken")
                continue
            }
            #expect(problem.description.contains(words), "\(text): \(problem)")
        }
    }

    @Test("a push address: http(s) with a path, never a space or a user")
    func pushAddresses() throws {
        #expect(try PushAddress.parse("https://ntfy.sh/morning-quest").get().host == "ntfy.sh")
        #expect(try PushAddress.parse("http://192.168.1.5:8090/message").get().port == 8090)
        for text in ["ftp://x/y", "https://ntfy.sh/a b", "https://me@ntfy.sh/x", "https:///x"] {
            if case .success = PushAddress.parse(text) { Issue.record("\(text) was taken") }
        }
    }

    @Test("#47: http:// (the player's reminders in plain text) only to the home network; https:// anywhere")
    func plainPushOnlyAtHome() throws {
        for text in ["http://192.168.1.5/q", "http://10.0.0.2:8090/q", "http://172.16.0.9/q", "http://172.31.255.1/q", "http://127.0.0.1/q",
                     "http://169.254.3.4/q", "http://[fd12:3456::1]/q", "http://[fe80::1]/q", "http://[::1]/q", "http://ntfy.local/q",
                     "http://NTFY.LOCAL:8090/q", "http://ntfy.home.arpa/q", "https://ntfy.sh/q", "https://203.0.113.9/q"] {
            #expect(throws: Never.self, "\(text)") { _ = try PushAddress.parse(text).get() }
        }
        for text in ["http://ntfy.sh/q", "http://203.0.113.9/q", "http://172.32.0.1/q", "http://192.169.1.1/q", "http://[2001:db8::1]/q",
                     "http://local/q", "http://ntfy.local.evil.example/q", "http://11.0.0.1/q", "http://ntfy/q", "http://192.168.1.5.nip.io/q"] {
            guard case .failure(let problem) = PushAddress.parse(text) else { Issue.record("\(text) was taken"); continue }
            #expect(problem.description.contains("outside the home network"), "\(text): \(problem)")
        }
    }

    @Test("a topic: no wildcard, no empty level, not the broker's own")
    func topics() {
        #expect(LinkTopic.problem("questbox/a1b2c3d4e5") == nil)
        #expect(LinkTopic.problem("home/kids/box") == nil)
        for bad in ["", "a/+/b", "a/#", "$SYS/x", "/a", "a/", "a//b", "a b", String(repeating: "x", count: 129)] {
            #expect(LinkTopic.problem(bad) != nil, "\(bad)")
        }
        #expect(LinkTopic.standard(boxID: "0a1b2c3d4e") == "questbox/0a1b2c3d4e")
    }
}
