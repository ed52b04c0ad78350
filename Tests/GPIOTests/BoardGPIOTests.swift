import BoardProfile
import Foundation
import GPIO
import QuestCore
import Testing

@Suite("GPIO: board lines by name, edges, outputs (on the fake)")
struct BoardGPIOTests {
    let sim = try! BoardProfile.load(path: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path + "/Boards/questbox-sim.yaml")

    func world() -> FakeGPIO {
        FakeGPIO(chips: [
            .init(path: "/dev/gpiochip0", label: "pinctrl-bcm2711", lines: ["GPIO0", "GPIO1"]),
            .init(path: "/dev/gpiochip1", label: "questbox", lines: ["BTN_LOCK", "BTN_STOP", "BTN_UP", "BTN_DOWN", "LED_RED", "LED_GREEN", "LED_BLUE", "BUZZER"]),
        ])
    }

    @Test("lines are found by name on the labelled chip, never by number; edges map to roles with kernel times")
    func edges() throws {
        let gpio = world()
        let board = try BoardGPIO(profile: sim, backend: gpio)
        #expect(board.pollDescriptors.count == 1)
        try gpio.edge(line: "BTN_STOP", rising: true, atNanos: 1_234_567_890)
        try gpio.edge(line: "BTN_STOP", rising: false, atNanos: 1_334_567_890)
        try gpio.edge(line: "BTN_LOCK", rising: true, atNanos: 2_000_000_000)
        var fds = board.pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        #expect(poll(&fds, nfds_t(fds.count), 0) == 1)
        let edges = try board.readButtonEdges(from: fds[0].fd)
        #expect(edges.map(\.role) == [.stop, .stop, .lock])
        #expect(edges.map(\.pressed) == [true, false, true])
        #expect(edges.map(\.atNanos) == [1_234_567_890, 1_334_567_890, 2_000_000_000])
        #expect(poll(&fds, nfds_t(fds.count), 0) == 0)  // drained
    }

    @Test("#49: a press's LED is set as its edge is read, when armed for that button and the press is late enough; only the first edge")
    func pressLights() throws {
        let gpio = world()
        let board = try BoardGPIO(profile: sim, backend: gpio)
        #expect(board.canLightPresses)
        board.armPressLights([(.lock, .yellow, 2_000), (.stop, .green, 5_000)])
        let fd = try #require(board.pollDescriptors.first)
        func read(_ lightingAhead: Bool = true) throws -> (roles: [ButtonRole], lit: LEDColor?) {
            let read = try board.readButtonEdges(from: fd, lightingAhead: lightingAhead)
            return (read.edges.map(\.role), read.litAhead)
        }
        let led = { try ["LED_RED", "LED_GREEN", "LED_BLUE"].map { try gpio.outputValue(line: $0) == true } }

        try gpio.edge(line: "BTN_LOCK", rising: true, atNanos: 2_000)
        #expect(try read() == ([.lock], .yellow))
        #expect(try led() == [true, true, false])
        // A press before its light's time (a debounce window, GAME-8's grace) is the loop's.
        try gpio.edge(line: "BTN_STOP", rising: true, atNanos: 4_999)
        #expect(try read() == ([.stop], nil))
        #expect(try led() == [true, true, false])
        // A release lights nothing; nor a press after another edge in the same read.
        try gpio.edge(line: "BTN_STOP", rising: false, atNanos: 6_000)
        try gpio.edge(line: "BTN_STOP", rising: true, atNanos: 7_000)
        #expect(try read() == ([.stop, .stop], nil))
        // Not asked to light, or a button with no light armed.
        try gpio.edge(line: "BTN_STOP", rising: true, atNanos: 8_000)
        #expect(try read(false) == ([.stop], nil))
        try gpio.edge(line: "BTN_UP", rising: true, atNanos: 9_000)
        #expect(try read() == ([.up], nil))
        #expect(try led() == [true, true, false])
        try gpio.edge(line: "BTN_STOP", rising: true, atNanos: 10_000)
        #expect(try read() == ([.stop], .green))
        #expect(try led() == [false, true, false])
        // Disarmed: every press is the loop's.
        board.armPressLights([])
        try gpio.edge(line: "BTN_LOCK", rising: true, atNanos: 11_000)
        #expect(try read() == ([.lock], nil))
        #expect(try led() == [false, true, false])
    }

    @Test("the RGB LED mixes colours; the buzzer switches; everything is off at start and on release")
    func outputs() throws {
        let gpio = world()
        var board: BoardGPIO? = try BoardGPIO(profile: sim, backend: gpio)
        #expect(try gpio.outputValue(line: "LED_RED") == false && gpio.outputValue(line: "BUZZER") == false)
        try board?.setLED(.yellow)
        #expect(try gpio.outputValue(line: "LED_RED") == true && gpio.outputValue(line: "LED_GREEN") == true && gpio.outputValue(line: "LED_BLUE") == false)
        try board?.setBuzzer(true)
        #expect(try board?.outputValue(role: "buzzer") == true)
        gpio.forgetRequests()
        board = nil
        #expect(gpio.history.suffix(4).allSatisfy { !$0.2 })  // LED and buzzer off before release
        #expect(gpio.releasedCount == 2)
    }

    @Test("a single-line LED is on for any colour")
    func singleLED() throws {
        let gpio = FakeGPIO(chips: [.init(path: "/dev/gpiochip0", label: "pinctrl-bcm2835", lines: ["GPIO5", "GPIO12", "GPIO17", "GPIO22", "GPIO23", "GPIO27"])])
        let zero = try BoardProfile.parse("""
            name: z
            chip: pinctrl-bcm2835
            lines: {lock: GPIO17, stop: GPIO27, up: GPIO22, down: GPIO23, led: GPIO5, buzzer: GPIO12}
            """, file: "z.yaml")
        let board = try BoardGPIO(profile: zero, backend: gpio)
        try board.setLED(.magenta)
        #expect(try gpio.outputValue(line: "GPIO5") == true)
        try board.setLED(.off)
        #expect(try gpio.outputValue(line: "GPIO5") == false)
    }

    @Test("a missing line names the line and the chips searched")
    func missingLine() throws {
        let gpio = world()
        gpio.chips[1].lines[3] = "BTN_DWN"
        #expect(throws: GPIOFailure("board questbox-sim: down: line BTN_DOWN not found (searched gpiochip1 (questbox))")) {
            _ = try BoardGPIO(profile: sim, backend: gpio)
        }
        #expect(throws: GPIOFailure("board questbox-sim: lock: line BTN_LOCK not found (searched no chip with that label)")) {
            _ = try BoardGPIO(profile: sim, backend: FakeGPIO(chips: [.init(path: "/dev/gpiochip0", label: "other", lines: ["BTN_LOCK"])]))
        }
    }

    @Test("a line held by another process is refused, naming the holder")
    func busyLine() throws {
        let gpio = world()
        gpio.heldByOthers["/dev/gpiochip1:0"] = "gpiomon"
        #expect(throws: GPIOFailure("board questbox-sim: lock: line BTN_LOCK (/dev/gpiochip1 line 0) is busy, held by gpiomon")) {
            _ = try BoardGPIO(profile: sim, backend: gpio)
        }
        #expect(gpio.requests.isEmpty)
    }
}

@Suite("GPIO: libgpiod through the shim")
struct LiveGPIOTests {
    @Test("the shim reports its libgpiod and, with no chip of that label here, names what it searched")
    func live() {
        #expect(LiveGPIO.libraryDescription.hasPrefix("libgpiod "))
        #expect(LiveGPIO.libraryDescription.contains("API)"))
        do {
            _ = try LiveGPIO().findLine(named: "BTN_LOCK", chipLabel: "no-such-chip-label")
            Issue.record("found a line on a chip that does not exist")
        } catch let e as GPIOFailure {
            #expect(e.description.hasPrefix("line BTN_LOCK not found (searched "))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
