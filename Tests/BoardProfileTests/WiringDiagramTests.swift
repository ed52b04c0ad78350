import BoardProfile
import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("Wiring pictures (questbox boards wiring)")
struct WiringDiagramTests {
    static let boards = "\(packageRoot)/Boards"

    /// The SVG's elements, read by an XML parser (so the picture is well-formed) as
    /// (name, attributes, text) in document order.
    final class Elements: NSObject, XMLParserDelegate {
        var found: [(name: String, attributes: [String: String], text: String)] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            found.append((name, attributes, ""))
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if !found.isEmpty { found[found.count - 1].text += string }
        }
    }

    static func elements(_ svg: String) -> [(name: String, attributes: [String: String], text: String)]? {
        let parser = XMLParser(data: Data(svg.utf8))
        let reader = Elements()
        parser.delegate = reader
        // Text is an element's own, up to the next element (the newline after it dropped).
        return parser.parse() ? reader.found.map { ($0.name, $0.attributes, $0.text.trimmingCharacters(in: .whitespacesAndNewlines)) } : nil
    }

    @Test("the header table: 40 pins, each carried once; GPIO names map to their physical pins")
    func header() {
        let pins = (1...40).compactMap { RaspberryPiHeader.pin($0) }
        #expect(pins.count == 40)
        let gpios = pins.compactMap { if case .gpio(let n) = $0 { n } else { nil } }
        #expect(gpios.sorted() == Array(0...27))
        #expect(RaspberryPiHeader.pin(forLineName: "GPIO17") == 11 && RaspberryPiHeader.pin(forLineName: "GPIO2") == 3 && RaspberryPiHeader.pin(forLineName: "GPIO21") == 40)
        for name in ["GPIO28", "GPIO017", "GPIO", "BTN_LOCK", "GPIO-1", "gpio17", "GPIO17 "] {
            #expect(RaspberryPiHeader.pin(forLineName: name) == nil, "\(name)")
        }
        #expect(RaspberryPiHeader.pin(0) == nil && RaspberryPiHeader.pin(41) == nil)
    }

    @Test("every Pi profile draws: each role's pin is coloured and its part's card names it; unused pins stay grey")
    func piProfiles() throws {
        for name in ["rpi4", "rpi5", "rpi-zero2w"] {
            let profile = try BoardProfile.load(path: "\(Self.boards)/\(name).yaml")
            let svg = try WiringDiagram.svg(for: profile)
            let elements = try #require(Self.elements(svg), "\(name): not well-formed XML")
            // Pin numbers are the text of the pin marks; find each role's mark and its fill.
            let pinTexts = elements.enumerated().filter { $0.element.name == "text" && Int($0.element.text) != nil }
            #expect(pinTexts.count == 40, "\(name)")
            let usedPins = Set(profile.linesByRole.compactMap { RaspberryPiHeader.pin(forLineName: $0.line) })
            #expect(usedPins.count == profile.linesByRole.count, "\(name): every line is on the header, once")
            for (index, text) in pinTexts {
                guard let number = Int(text.text), index > 0 else { continue }
                let mark = elements[index - 1]
                let fill = mark.attributes["fill"] ?? ""
                if case .gpio? = RaspberryPiHeader.pin(number) {
                    #expect((fill == "#c8c8c8") == !usedPins.contains(number), "\(name): pin \(number) fill \(fill)")
                }
            }
            let allText = elements.map(\.text).joined(separator: "\n")
            for title in ["LOCK button", "STOP button", "UP button", "DOWN button", "Active buzzer, via an NPN transistor"] {
                #expect(allText.contains(title), "\(name): \(title)")
            }
            // The label beside the lock pin is the profile's line.
            #expect(allText.contains(profile.lock) && allText.contains(profile.buzzer))
        }
        let zero = try WiringDiagram.svg(for: BoardProfile.load(path: "\(Self.boards)/rpi-zero2w.yaml"))
        #expect(zero.contains("Status LED, via a 330 Ω resistor") && !zero.contains("RGB LED"))
    }

    @Test("README's picture is what the rpi4 profile draws today (docs/images/wiring-rpi4.svg)")
    func committedPicture() throws {
        let drawn = try WiringDiagram.svg(for: BoardProfile.load(path: "\(Self.boards)/rpi4.yaml"))
        let committed = try String(contentsOfFile: "\(packageRoot)/docs/images/wiring-rpi4.svg", encoding: .utf8)
        #expect(committed == drawn, "run: questbox boards wiring rpi4 --to docs/images/wiring-rpi4.svg")
    }

    @Test("a board off the header (the simulated chip) is refused in one line naming the field; hostile text is escaped")
    func refusedAndEscaped() throws {
        let sim = try BoardProfile.load(path: "\(Self.boards)/questbox-sim.yaml")
        let refused = #expect(throws: WiringDiagram.NotOnTheHeader.self) { try WiringDiagram.svg(for: sim) }
        #expect(refused?.description == "questbox-sim: lines.lock: \"BTN_LOCK\" is not a Raspberry Pi header line (GPIO0 … GPIO27), so there is no header to draw")
        var odd = try BoardProfile.load(path: "\(Self.boards)/rpi4.yaml")
        odd.description = "</text><script>alert(1)</script> & \u{07}\"bell\""
        odd.audioCard = "a\"b<c"
        let svg = try WiringDiagram.svg(for: odd)
        #expect(!svg.contains("<script") && !svg.contains("\u{07}") && Self.elements(svg) != nil)
        #expect(svg.contains("&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp;  &quot;bell&quot;"), "the bell is a space")
    }

    // Runs this machine's `questbox`: not in the arm64 build of the pure modules' tests.
    #if !QUESTBOX_PURE_MODULES
    @Test("questbox boards wiring: to standard output or --to FILE; a profile off the header or an unwritable file is one line")
    func cli() throws {
        let questbox = productPath("questbox")
        var env = ProcessInfo.processInfo.environment
        env["QUESTBOX_BOARDS"] = Self.boards
        let out = try runProcess(questbox, ["boards", "wiring", "rpi5"], environment: env)
        #expect(out.status == 0 && out.stdout.hasPrefix("<svg") && out.stdout.contains("rpi5") && Self.elements(out.stdout) != nil)
        let dir = temporaryDirectory()
        let file = dir + "/w.svg"
        let written = try runProcess(questbox, ["boards", "wiring", "rpi4", "--to", file], environment: env)
        #expect(written.status == 0 && written.stdout == "wrote the rpi4 wiring to \(file)\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("<svg"))
        let sim = try runProcess(questbox, ["boards", "wiring", "questbox-sim"], environment: env)
        #expect(sim.status == 1 && sim.stdout.isEmpty && sim.stderr.split(separator: "\n").count == 1 && sim.stderr.contains("lines.lock"))
        let nowhere = try runProcess(questbox, ["boards", "wiring", "rpi4", "--to", dir + "/no/such/w.svg"], environment: env)
        #expect(nowhere.status == 1 && nowhere.stderr == "questbox: \(dir)/no/such/w.svg: cannot write the picture there (is the folder there, and writable?)\n")
    }
    #endif
}
