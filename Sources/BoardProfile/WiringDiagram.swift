import QuestCore

/// A board profile's wiring drawn as an SVG of the Raspberry Pi's 40-pin header: every pin
/// with its number and what it carries, and each role's part (button, LED with its resistor,
/// the buzzer's transistor) wired to its pin. Drawn from the profile, so the picture cannot
/// disagree with what the box opens.
public enum WiringDiagram {
    public struct NotOnTheHeader: Error, CustomStringConvertible {
        public var profile: String
        public var role: String
        public var line: String
        public var description: String {
            "\(profile): lines.\(role): \"\(line)\" is not a Raspberry Pi header line (GPIO0 … GPIO27), so there is no header to draw"
        }
    }

    /// One part wired to a header pin.
    struct Part {
        var role: String
        var pin: Int
        var title: String
        var detail: String
        var color: String
    }

    static let rowGap = 38.0
    static let top = 118.0
    static let oddX = 450.0, evenX = 490.0

    /// Whether the profile's lines are all on the Raspberry Pi header (a simulated board's are
    /// not), without drawing anything.
    public static func canDraw(_ profile: BoardProfile) -> Bool {
        (try? parts(of: profile)) != nil
    }

    public static func svg(for profile: BoardProfile) throws -> String {
        let parts = try self.parts(of: profile)
        let height = top + rowGap * 20 + 120
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="940" height="\(format(height))" viewBox="0 0 940 \(format(height))" font-family="DejaVu Sans, Verdana, sans-serif">
            <title>\(escape("Wiring of the \(profile.name) board"))</title>
            <rect width="940" height="\(format(height))" fill="#ffffff"/>
            <text x="470" y="36" font-size="22" font-weight="bold" text-anchor="middle" fill="#222">\(escape("TimeQuest Box wiring — \(profile.name)"))</text>
            <text x="470" y="60" font-size="13" text-anchor="middle" fill="#555">\(escape(profile.description))</text>
            <text x="470" y="86" font-size="12" text-anchor="middle" fill="#555">The 40-pin header seen from above: pin 1 is the square pad, at the top left.</text>
            <rect x="\(format(oddX - 24))" y="\(format(top - 24))" width="\(format(evenX - oddX + 48))" height="\(format(rowGap * 19 + 48))" rx="8" fill="#1f5f3a"/>

            """
        let byPin = Dictionary(parts.map { ($0.pin, $0) }, uniquingKeysWith: { first, _ in first })
        for number in 1...RaspberryPiHeader.pinCount {
            out += pinSVG(number, part: byPin[number])
        }
        let footerY = top + rowGap * 19 + 56
        let buttons = "Buttons: \(profile.buttonsActiveLow ? "active-low" : "active-high"), bias \(profile.buttonBias.rawValue), debounce \(profile.debounceMs) ms, hold \(profile.holdMs) ms."
        let power = "GND: pins \(RaspberryPiHeader.groundPins.map(String.init).joined(separator: ", ")) · 3V3: pins 1, 17 · 5V: pins 2, 4."
        let sound = "Sound: the ALSA card \"\(profile.audioCard)\"\(profile.chip.map { " · GPIO chip: \($0)" } ?? "")."
        for (i, line) in [buttons, power, sound].enumerated() {
            out += "<text x=\"470\" y=\"\(format(footerY + Double(i) * 20))\" font-size=\"13\" text-anchor=\"middle\" fill=\"#333\">\(escape(line))</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    static func pinSVG(_ number: Int, part: Part?) -> String {
        let left = number % 2 == 1
        let row = Double((number - 1) / 2)
        let x = left ? oddX : evenX
        let y = top + row * rowGap
        let kind = RaspberryPiHeader.pin(number)
        let (label, fill, textFill): (String, String, String) = {
            switch kind {
            case .gpio(let bcm)?: ("GPIO\(bcm)", part?.color ?? "#c8c8c8", part == nil ? "#333" : "#fff")
            case .ground?: ("GND", "#222222", "#fff")
            case .power3V3?: ("3V3", "#e8a317", "#222")
            case .power5V?: ("5V", "#d62728", "#fff")
            case nil: ("", "#c8c8c8", "#333")
            }
        }()
        var out = number == 1
            ? "<rect x=\"\(format(x - 11))\" y=\"\(format(y - 11))\" width=\"22\" height=\"22\" fill=\"\(fill)\" stroke=\"#fff\" stroke-width=\"1.5\"/>\n"
            : "<circle cx=\"\(format(x))\" cy=\"\(format(y))\" r=\"11\" fill=\"\(fill)\" stroke=\"#fff\" stroke-width=\"1.5\"/>\n"
        out += "<text x=\"\(format(x))\" y=\"\(format(y + 4))\" font-size=\"10\" text-anchor=\"middle\" fill=\"\(textFill)\">\(number)</text>\n"
        let labelX = left ? x - 34 : x + 34
        out += "<text x=\"\(format(labelX))\" y=\"\(format(y + 4))\" font-size=\"12\" text-anchor=\"\(left ? "end" : "start")\" fill=\"\(part == nil ? "#888" : "#222")\"\(part == nil ? "" : " font-weight=\"bold\"")>\(label)</text>\n"
        guard let part else { return out }
        // The part's card on the outside, wired to the label.
        let cardWidth = 320.0
        let cardX = left ? 20.0 : 940 - 20 - cardWidth
        let wireFrom = left ? labelX - 58 : labelX + 58
        let wireTo = left ? cardX + cardWidth : cardX
        out += "<line x1=\"\(format(wireFrom))\" y1=\"\(format(y))\" x2=\"\(format(wireTo))\" y2=\"\(format(y))\" stroke=\"\(part.color)\" stroke-width=\"2.5\"/>\n"
        out += "<rect x=\"\(format(cardX))\" y=\"\(format(y - 16))\" width=\"\(format(cardWidth))\" height=\"32\" rx=\"5\" fill=\"#f7f7f7\" stroke=\"\(part.color)\" stroke-width=\"2\"/>\n"
        out += "<text x=\"\(format(cardX + 10))\" y=\"\(format(y - 2))\" font-size=\"12.5\" font-weight=\"bold\" fill=\"#222\">\(escape(part.title))</text>\n"
        out += "<text x=\"\(format(cardX + 10))\" y=\"\(format(y + 11))\" font-size=\"10.5\" fill=\"#444\">\(escape(part.detail))</text>\n"
        return out
    }

    /// Each role's part, on its header pin; a line that is not a header GPIO is refused.
    static func parts(of profile: BoardProfile) throws -> [Part] {
        let buttonDetail: String = {
            switch (profile.buttonsActiveLow, profile.buttonBias) {
            case (true, .pullUp): "other leg → GND (the pin's own pull-up)"
            case (false, .pullDown): "other leg → 3V3 (the pin's own pull-down)"
            case (true, _): "other leg → GND; 10 kΩ pull-up to 3V3"
            case (false, _): "other leg → 3V3; 10 kΩ pull-down to GND"
            }
        }()
        let ledReturn = profile.outputsActiveLow ? "anode → 3V3 (driven low to light)" : "cathode → GND"
        var roles: [(role: String, line: String, title: String, detail: String, color: String)] = [
            ("lock", profile.lock, "LOCK button (lock in · next)", buttonDetail, "#2b6cb0"),
            ("stop", profile.stop, "STOP button (the task is done)", buttonDetail, "#c05621"),
            ("up", profile.up, "UP button (a longer guess)", buttonDetail, "#2f855a"),
            ("down", profile.down, "DOWN button (a shorter guess)", buttonDetail, "#6b46c1"),
        ]
        switch profile.led {
        case .single(let line):
            roles.append(("led", line, "Status LED, via a 330 Ω resistor", ledReturn, "#d69e2e"))
        case .rgb(let red, let green, let blue):
            let common = profile.outputsActiveLow ? "common anode → 3V3" : "common cathode → GND"
            roles += [
                ("led.red", red, "RGB LED red, via a 330 Ω resistor", common, "#e53e3e"),
                ("led.green", green, "RGB LED green, via a 330 Ω resistor", common, "#38a169"),
                ("led.blue", blue, "RGB LED blue, via a 330 Ω resistor", common, "#3182ce"),
            ]
        }
        let buzzer = profile.outputsActiveLow
            ? ("Active buzzer, via a PNP transistor", "1 kΩ to base · emitter → 3V3 · collector → buzzer → GND")
            : ("Active buzzer, via an NPN transistor", "1 kΩ to base · emitter → GND · 5V → buzzer → collector")
        roles.append(("buzzer", profile.buzzer, buzzer.0, buzzer.1, "#4a5568"))
        return try roles.map { role in
            guard let pin = RaspberryPiHeader.pin(forLineName: role.line) else {
                throw NotOnTheHeader(profile: profile.name, role: role.role, line: role.line)
            }
            return Part(role: role.role, pin: pin, title: role.title, detail: role.detail, color: role.color)
        }
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Text as SVG character data (`DisplayText.markupEscaped`).
    static func escape(_ text: String) -> String { DisplayText.markupEscaped(text) }
}
