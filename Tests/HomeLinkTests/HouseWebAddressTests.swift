import Foundation
import HomeLink
import Testing

/// #47: "Another box's `<base>/info` from the broker puts any link into the parent's page
/// (`http://questbox.local:8080@127.0.0.1:18999/parent` shown as a box)."
@Suite("#47: other boxes' web addresses")
struct HouseWebAddressTests {
    @Test("#47: a home network's box address is kept, rebuilt from its parts, its host printed plainly", arguments: [
        ("http://hallway.local:8080/", "http://hallway.local:8080/", "hallway.local:8080"),
        ("http://Hallway.LOCAL:8080", "http://hallway.local:8080/", "hallway.local:8080"),
        ("https://bedroom.home.arpa/", "https://bedroom.home.arpa/", "bedroom.home.arpa"),
        ("http://[fe80::1]:8080/", "http://[fe80::1]:8080/", "[fe80::1]:8080"),
        ("http://192.168.1.20:8080/", "http://192.168.1.20:8080/", "192.168.1.20:8080"),
        ("http://10.0.0.7/", "http://10.0.0.7/", "10.0.0.7"),
        ("http://172.20.1.2:80/", "http://172.20.1.2:80/", "172.20.1.2:80"),
        ("http://169.254.3.4/", "http://169.254.3.4/", "169.254.3.4"),
    ])
    func kept(_ text: String, url: String, shown: String) {
        let address = HouseWebAddress.parse(text)
        #expect(address?.url == url && address?.shown == shown, "\(text)")
    }

    @Test("#47: anything else is refused: a user part, a path, a query, a public or loopback host, another scheme, control or bidi characters", arguments: [
        "http://questbox.local:8080@127.0.0.1:18999/parent", "http://user:pw@hallway.local/", "http://hallway.local:8080/parent",
        "http://hallway.local/?next=/parent", "http://hallway.local/#x", "http://example.com/", "https://evil.example.org:8080/",
        "http://127.0.0.1:8080/", "http://8.8.8.8/", "http://172.32.0.1/", "http://192.169.1.1/", "http://999.1.1.1/", "http://1.2.3/",
        "javascript:alert(1)", "ftp://hallway.local/", "file:///etc/passwd", "//hallway.local/", "http://hall way.local/", "http://questbox:8080/", "http://localhost:8080/",
        "http://hallway.local\u{202E}/", "http://hall\u{2028}way.local/", "http://-bad.local/", "http://[::1]/", "http://hallway.local:0/",
        "http://" + String(repeating: "a", count: 300) + ".local/", "",
    ])
    func refused(_ text: String) {
        #expect(HouseWebAddress.parse(text) == nil, "\(text)")
    }

    @Test("#47: a box's info with a forged address keeps its name and no link")
    func heardBoxInfo() throws {
        let payload = Array(#"{"name":"hallway","web":"http://questbox.local:8080@127.0.0.1:18999/parent"}"#.utf8)
        let parsed = try #require(HeardBox.parse(topic: "questbox/0a0a0a0a0a/info", payload: payload, ownID: "0b0b0b0b0b"))
        var box = HeardBox()
        parsed.apply(&box)
        #expect(box.name == "hallway" && box.web == nil)
        let good = try #require(HeardBox.parse(topic: "questbox/0a0a0a0a0a/info", payload: Array(#"{"name":"hallway","web":"http://hallway.local:8080"}"#.utf8), ownID: "0b0b0b0b0b"))
        good.apply(&box)
        #expect(box.web == "http://hallway.local:8080/")
        // #47: bidi overrides and line separators in a heard name are dropped, its length bounded.
        let forged = Array("{\"name\":\"hall\u{202E}yaw\u{2028}\u{2066}x\(String(repeating: "y", count: 300))\"}".utf8)
        try #require(HeardBox.parse(topic: "questbox/0a0a0a0a0a/info", payload: forged, ownID: "0b0b0b0b0b")).apply(&box)
        #expect(box.name == "hallyawx" + String(repeating: "y", count: 120))
    }
}
