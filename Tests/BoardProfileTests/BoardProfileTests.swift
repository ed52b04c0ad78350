@testable import BoardProfile
import Foundation
import TestSupport
import Testing

@Suite("§7 board profiles")
struct BoardProfileTests {
    let boards = "\(packageRoot)/Boards"

    @Test("every shipped profile is valid; the sim profile has exactly the HIL chip's lines")
    func shipped() throws {
        let found = BoardCatalog.available(in: [boards])
        #expect(found.map(\.name) == ["questbox-sim", "questbox-sim-oled", "rpi-zero2w", "rpi4", "rpi5"])
        for (name, path) in found {
            let p = try BoardProfile.load(path: path)
            #expect(p.name == name)
        }
        let sim = try BoardCatalog.resolve("questbox-sim", in: [boards])
        #expect(sim.chip == "questbox")
        #expect(sim.linesByRole.map(\.line) == ["BTN_LOCK", "BTN_STOP", "BTN_UP", "BTN_DOWN", "LED_RED", "LED_GREEN", "LED_BLUE", "BUZZER"])
        #expect(sim.buttonsActiveLow && sim.buttonBias == .pullUp && !sim.outputsActiveLow)
        #expect(try BoardCatalog.resolve("rpi5", in: [boards]).chip == "pinctrl-rp1")
        #expect(try BoardCatalog.resolve("rpi-zero2w", in: [boards]).led == .single(line: "GPIO5"))
        // The OLED sibling is the sim box plus an SSD1306 on the kernel's stub adapter, by name.
        let oled = try BoardCatalog.resolve("questbox-sim-oled", in: [boards])
        #expect(oled.linesByRole.map(\.line) == sim.linesByRole.map(\.line) && oled.chip == sim.chip)
        #expect(oled.display?.kind == .ssd1306 && oled.display?.i2cBus == .named("SMBus stub driver") && oled.display?.address == 0x3C)
        #expect(sim.display == nil)
    }

    static let good = """
        name: test
        lines: {lock: A, stop: B, up: C, down: D, led: E, buzzer: F}
        """

    @Test("defaults: any chip, active-low pull-up buttons, 30/800 ms, default card at 20 ms")
    func defaults() throws {
        let p = try BoardProfile.parse(Self.good, file: "t.yaml")
        #expect(p.chip == nil && p.buttonsActiveLow && p.buttonBias == .pullUp && p.debounceMs == 30 && p.holdMs == 800)
        #expect(!p.outputsActiveLow && p.audioCard == "default" && p.audioLatencyMs == 20)
        #expect(try BoardProfile.parse(Self.good + "\nchip: auto", file: "t.yaml").chip == nil)
    }

    @Test("a bad profile fails with one line naming the file, the field and the problem")
    func bad() {
        let cases: [(String, String)] = [
            ("lines: {lock: A, stop: B, up: C, down: D, led: E, buzzer: F}", "t.yaml: name: missing"),
            ("name: x", "t.yaml: lines: missing"),
            ("name: x\nlines: {lock: A, stop: B, up: C, down: D, led: E}", "t.yaml: lines.buzzer: missing"),
            ("name: x\nlines: {lock: A, stop: A, up: C, down: D, led: E, buzzer: F}", "t.yaml: lines.stop: \"A\" is already used for lock"),
            ("name: x\nlines: {lock: A, stop: B, up: C, down: D, led: {red: E, green: G}, buzzer: F}", "t.yaml: lines.led.blue: missing"),
            ("name: x\nlines: {lock: A, stop: B, up: C, down: D, led: E, buzzer: F, horn: H}", "t.yaml: lines.horn: unknown field"),
            (Self.good + "\nbuttons: {bias: pullup}", "t.yaml: buttons.bias: \"pullup\" is not one of pull-up, pull-down, disabled, as-is"),
            (Self.good + "\nbuttons: {debounce_ms: 0}", "t.yaml: buttons.debounce_ms: \"0\" is not a whole number from 1 to 500"),
            (Self.good + "\nbuttons: {debounce_ms: 300, hold_ms: 200}", "t.yaml: buttons.hold_ms: 200 must be longer than debounce_ms (300)"),
            (Self.good + "\nbuttons: {active_low: maybe}", "t.yaml: buttons.active_low: \"maybe\" is not true or false"),
            (Self.good + "\naudio: {latency_ms: fast}", "t.yaml: audio.latency_ms: \"fast\" is not a whole number from 5 to 500"),
            (Self.good + "\ncolour: blue", "t.yaml: colour: unknown field"),
            ("name: [x", "t.yaml: not valid YAML"),
            ("- just\n- a list", "t.yaml: expected a mapping of fields"),
        ]
        for (yaml, expected) in cases { Self.expectRefused(yaml, expected) }
    }

    @Test("true and false as YAML 1.1 writes them (yes/on/TRUE…), numbers in any base YAML allows; a quoted \"true\" or \"30\" is text")
    func scalars() throws {
        for (written, value) in [("true", true), ("Yes", true), ("ON", true), ("false", false), ("no", false), ("Off", false)] {
            let p = try BoardProfile.parse(Self.good + "\nbuttons: {active_low: \(written)}\ncontrol: {socket_press: \(written)}", file: "t.yaml")
            #expect(p.buttonsActiveLow == value && p.socketPress == value, "\(written)")
        }
        #expect(try BoardProfile.parse(Self.good + "\nbuttons: {debounce_ms: 0x1e, hold_ms: 1_000}", file: "t.yaml").debounceMs == 30)
        for (yaml, expected) in [
            ("buttons: {active_low: \"true\"}", "t.yaml: buttons.active_low: \"true\" is not true or false"),
            ("buttons: {active_low: tRuE}", "t.yaml: buttons.active_low: \"tRuE\" is not true or false"),
            ("buttons: {active_low: [true]}", "t.yaml: buttons.active_low: \"?\" is not true or false"),
            ("buttons: {debounce_ms: \"30\"}", "t.yaml: buttons.debounce_ms: \"30\" is not a whole number from 1 to 500"),
        ] {
            Self.expectRefused(Self.good + "\n" + yaml, expected)
        }
    }

    @Test("YAML anchors and aliases are refused before parsing (an alias bomb hung the parser for minutes under the fuzzer); & and * in quotes and comments are fine")
    func anchorsAndAliases() throws {
        // Nine levels of nine aliases each: 9^7 nodes from 600 bytes.
        var bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n"
        for (previous, name) in zip("abcdefg", "bcdefgh") {
            bomb += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]\n"
        }
        let started = ContinuousClock.now
        #expect(throws: BoardProfileError(file: "bomb.yaml", field: "", problem: "YAML anchors and aliases (& and *) are not used in board profiles (line 1, column 4)")) {
            try BoardProfile.parse(bomb, file: "bomb.yaml")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(BoardProfile.firstAnchorOrAlias(in: "lines:\n  - *led") ?? (0, 0) == (2, 5))
        #expect(BoardProfile.firstAnchorOrAlias(in: "name: {a: &x 1}") ?? (0, 0) == (1, 11))
        for fine in ["name: \"a *b & c\"", "name: 'it''s *not* an alias'", "name: x # a *comment &", "name: a*b&c", "d: \"esc \\\" *q\""] {
            #expect(BoardProfile.firstAnchorOrAlias(in: fine) == nil, "\(fine)")
        }
    }

    @Test("an unknown board name lists the known ones and where it looked")
    func unknownName() {
        do {
            _ = try BoardCatalog.resolve("rpi9", in: [boards])
            Issue.record("resolved rpi9")
        } catch let e as BoardProfileError {
            #expect(e.description.contains("no such board profile (known: questbox-sim, questbox-sim-oled, rpi-zero2w, rpi4, rpi5; searched \(boards))"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("display: an SSD1306 on the stub adapter by name, an SH1106 by bus number, a framebuffer by name, none (SPEC §2)")
    func display() throws {
        #expect(try BoardProfile.parse(Self.good, file: "t.yaml").display == nil)
        #expect(try BoardProfile.parse(Self.good + "\ndisplay: {type: none}", file: "t.yaml").display == nil)

        let stub = try BoardProfile.parse(Self.good + "\ndisplay: {type: ssd1306, i2c_bus: SMBus stub driver, address: 0x3c}", file: "t.yaml").display
        #expect(stub == DisplayConfig(
            kind: .ssd1306, i2cBus: .named("SMBus stub driver"), address: 0x3C, framebuffer: nil, width: 128, height: 64, rotation: 0,
            contrast: 127, idleOffMinutes: 10))
        #expect(stub?.summary == "ssd1306 128×64 at 0x3c on the I2C adapter \"SMBus stub driver\"")

        let sh1106 = try BoardProfile.parse(
            Self.good + "\ndisplay: {type: sh1106, i2c_bus: 1, address: 0x3d, rotation: 180, contrast: 255, idle_off_minutes: 0}", file: "t.yaml").display
        #expect(sh1106?.i2cBus == .number(1) && sh1106?.address == 0x3D && sh1106?.rotation == 180 && sh1106?.contrast == 255)
        #expect(sh1106?.idleOffMinutes == 0)
        #expect(sh1106?.summary == "sh1106 128×64 rotated 180° at 0x3d on /dev/i2c-1")
        let small = try BoardProfile.parse(Self.good + "\ndisplay: {type: ssd1306, i2c_bus: 1, height: 32}", file: "t.yaml").display
        #expect(small?.height == 32 && small?.address == 0x3C)

        let fb = try BoardProfile.parse(Self.good + "\ndisplay: {type: framebuffer, framebuffer: vfb, width: 320, height: 240}", file: "t.yaml").display
        #expect(fb?.kind == .framebuffer && fb?.framebuffer == "vfb" && fb?.i2cBus == nil && fb?.address == nil)
        #expect(fb?.summary == "framebuffer \"vfb\" 320×240")
    }

    @Test("display.night: hours that may cross midnight; night or not at each second, and how long until that changes")
    func nightHours() throws {
        let profile = try BoardProfile.parse(Self.good + "\ndisplay: {type: ssd1306, i2c_bus: 1, night: 21:30-07:00}", file: "t.yaml")
        let night = try #require(profile.display?.night)
        #expect(night.description == "21:30-07:00")
        #expect(profile.display?.summary == "ssd1306 128×64, dark 21:30-07:00 at 0x3c on /dev/i2c-1")
        #expect(night.state(atSecondOfDay: 21 * 3_600 + 29 * 60 + 59) == (false, 1))
        #expect(night.state(atSecondOfDay: 21 * 3_600 + 30 * 60) == (true, 9 * 3_600 + 30 * 60))
        #expect(night.state(atSecondOfDay: 0) == (true, 7 * 3_600))
        #expect(night.state(atSecondOfDay: 7 * 3_600) == (false, 14 * 3_600 + 30 * 60))
        // Within one day (a nap, a school): no crossing of midnight.
        let day = try #require(NightHours("1:00-05:15"))
        #expect(day.state(atSecondOfDay: 30) == (false, 3_570))
        #expect(day.state(atSecondOfDay: 5 * 3_600 + 14 * 60) == (true, 60))
        #expect(day.state(atSecondOfDay: 5 * 3_600 + 15 * 60) == (false, 19 * 3_600 + 45 * 60))
        #expect(NightHours("23:59-00:00") != nil && NightHours("00:00-00:00") == nil && NightHours("-") == nil)
    }

    @Test("display.night across DST in Berlin: the spring night is an hour shorter, the autumn one an hour longer, to the wall-clock edge")
    func nightHoursDST() throws {
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let night = try #require(NightHours("21:30-07:00"))
        func at(_ iso: String) throws -> Date { try Date(iso, strategy: .iso8601) }
        // 2026-03-28 21:30 CET (20:30Z) → 2026-03-29 07:00 CEST (05:00Z): 8 h 30 min.
        let spring = night.state(at: try at("2026-03-28T20:30:00Z"), calendar: berlin)
        #expect(spring.isNight && spring.secondsUntilChange == 8.5 * 3_600)
        // 2026-10-24 21:30 CEST (19:30Z) → 2026-10-25 07:00 CET (06:00Z): 10 h 30 min.
        let autumn = night.state(at: try at("2026-10-24T19:30:00Z"), calendar: berlin)
        #expect(autumn.isNight && autumn.secondsUntilChange == 10.5 * 3_600)
        // Across the year's end: 2026-12-31 20:00 CET is day, and night begins in 1 h 30 min.
        let newYear = night.state(at: try at("2026-12-31T19:00:00Z"), calendar: berlin)
        #expect(!newYear.isNight && newYear.secondsUntilChange == 1.5 * 3_600)
    }

    @Test("each Pi profile's commented OLED section, uncommented, is an SSD1306 at 0x3c on /dev/i2c-1 (SDA GPIO2, SCL GPIO3)")
    func piProfilesOLED() throws {
        for name in ["rpi4", "rpi5", "rpi-zero2w"] {
            let text = try String(contentsOfFile: "\(boards)/\(name).yaml", encoding: .utf8)
            #expect(text.contains("GPIO2     OLED SDA") && text.contains("GPIO3     OLED SCL"), "\(name): the wiring table")
            var inSection = false
            let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
                if line.hasPrefix("# display:") { inSection = true; return line.dropFirst(2) }
                if inSection, line.hasPrefix("#   ") { return line.dropFirst(2) }
                inSection = false
                return line
            }.joined(separator: "\n")
            let display = try BoardProfile.parse(uncommented, file: "\(name).yaml").display
            #expect(display?.kind == .ssd1306 && display?.i2cBus == .number(1) && display?.address == 0x3C, "\(name)")
            #expect(display?.night?.description == "21:30-07:00", "\(name): dark at night")
            #expect(try BoardProfile.load(path: "\(boards)/\(name).yaml").display == nil, "\(name) ships without a screen")
        }
    }

    @Test("a bad display section fails with one line naming display.<field> and what it accepts")
    func badDisplay() {
        let cases: [(String, String)] = [
            ("display: {i2c_bus: 1}", "t.yaml: display.type: missing"),
            ("display: {type: lcd}", "t.yaml: display.type: \"lcd\" is not one of ssd1306, sh1106, framebuffer, none"),
            ("display: {type: ssd1306}", "t.yaml: display.i2c_bus: missing"),
            ("display: {type: ssd1306, i2c_bus: 1, address: 0x3e}", "t.yaml: display.address: 0x3e is not 0x3c or 0x3d"),
            ("display: {type: ssd1306, i2c_bus: 1, address: 0x3c0}", "t.yaml: display.address: \"0x3c0\" is not a whole number from 0 to 127"),
            ("display: {type: ssd1306, i2c_bus: 1, height: 48}", "t.yaml: display.height: 48 is not 32 or 64"),
            ("display: {type: sh1106, i2c_bus: 1, height: 32}", "t.yaml: display.height: 32 is not 64"),
            ("display: {type: ssd1306, i2c_bus: 1, width: 96}", "t.yaml: display.width: 96 is not 128"),
            ("display: {type: ssd1306, i2c_bus: 300}", "t.yaml: display.i2c_bus: 300 is not a bus number from 0 to 255"),
            ("display: {type: ssd1306, i2c_bus: \"bus\\u0007\"}", "t.yaml: display.i2c_bus: not a device name"),
            ("display: {type: ssd1306, i2c_bus: 1, rotation: 90}", "t.yaml: display.rotation: 90 is not 0 or 180"),
            ("display: {type: ssd1306, i2c_bus: 1, contrast: 256}", "t.yaml: display.contrast: \"256\" is not a whole number from 0 to 255"),
            ("display: {type: ssd1306, i2c_bus: 1, framebuffer: vfb}", "t.yaml: display.framebuffer: only for type framebuffer"),
            ("display: {type: framebuffer}", "t.yaml: display.framebuffer: missing"),
            ("display: {type: framebuffer, framebuffer: vfb, address: 0x3c}", "t.yaml: display.address: only for an I2C OLED"),
            ("display: {type: none, i2c_bus: 1}", "t.yaml: display.i2c_bus: not used with type none"),
            ("display: {type: ssd1306, i2c_bus: 1, colour: white}", "t.yaml: display.colour: unknown field"),
            ("display: oled", "t.yaml: display: expected a mapping"),
            ("display: {type: ssd1306, i2c_bus: 1, night: \"22:00\"}", "t.yaml: display.night: \"22:00\" is not a span of hours like 21:30-07:00"),
            ("display: {type: ssd1306, i2c_bus: 1, night: \"24:00-07:00\"}", "t.yaml: display.night: \"24:00-07:00\" is not a span"),
            ("display: {type: ssd1306, i2c_bus: 1, night: \"7:00-7:00\"}", "t.yaml: display.night: \"7:00-7:00\" is not a span"),
            ("display: {type: ssd1306, i2c_bus: 1, night: \"21:3-07:00\"}", "t.yaml: display.night: \"21:3-07:00\" is not a span"),
            ("display: {type: ssd1306, i2c_bus: 1, night: \"2١:30-07:00\"}", "t.yaml: display.night: \"2١:30-07:00\" is not a span"),
            ("display: {type: ssd1306, i2c_bus: 1, night: \"21:30-07:00\\u0007\"}", "t.yaml: display.night: \"21:30-07:00\\u{07}\" is not a span"),
        ]
        for (section, expected) in cases { Self.expectRefused(Self.good + "\n" + section, expected) }
    }

    /// `yaml` is refused with one line starting `expected` ("t.yaml: field: problem").
    static func expectRefused(_ yaml: String, _ expected: String) {
        do {
            _ = try BoardProfile.parse(yaml, file: "t.yaml")
            Issue.record("accepted: \(yaml)")
        } catch let e as BoardProfileError {
            #expect(e.description.hasPrefix(expected), "\(yaml) → \(e)")
            #expect(!e.description.contains("\n"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    // Runs this machine's `questbox`: not in the arm64 build of the pure modules' tests.
    #if !QUESTBOX_PURE_MODULES
    @Test("questbox boards validate / list")
    func cli() throws {
        let questbox = productPath("questbox")
        let ok = try runProcess(questbox, ["boards", "validate", "\(boards)/questbox-sim.yaml"])
        #expect(ok.status == 0 && ok.stdout.contains("ok — questbox-sim on questbox"))
        #expect(ok.stdout.hasSuffix("; display none\n"), "\(ok.stdout)")
        let dir = temporaryDirectory()
        let bad = (dir as NSString).appendingPathComponent("bad.yaml")
        #expect(FileManager.default.createFile(atPath: bad, contents: Data("name: x\nlines: {lock: A}\n".utf8)))
        let refused = try runProcess(questbox, ["boards", "validate", bad])
        #expect(refused.status != 0 && refused.stderr == "questbox: \(bad): lines.stop: missing\n")
        var env = ProcessInfo.processInfo.environment
        env["QUESTBOX_BOARDS"] = boards
        let list = try runProcess(questbox, ["boards", "list"], environment: env)
        #expect(list.stdout.contains("rpi5 — Raspberry Pi 5"))
    }
    #endif
}
