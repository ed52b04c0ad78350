import Display
import Foundation
import QuestCore
import ScreenRender
import Testing

/// A screen that records what reached it, in order; `gate` holds the first `show` until opened.
final class RecordingScreen: BoxScreen, @unchecked Sendable {
    enum Write: Equatable { case frame(MonoFrame), on(Bool) }
    private let lock = NSCondition()
    private var log: [Write] = []
    private var failingNow = false
    private var gate: DispatchSemaphore?
    private var held = false
    var failing: Bool {
        get { lock.withLock { failingNow } }
        set { lock.withLock { failingNow = newValue } }
    }
    /// The next `show` waits for `gate` (a frame held on the bus).
    func hold(until gate: DispatchSemaphore) { lock.withLock { self.gate = gate } }
    let summary = "recording 128×64"
    var lastWrite: String { "" }
    func probe() throws {}

    func show(_ frame: MonoFrame) throws {
        if let gate = lock.withLock({ () -> DispatchSemaphore? in
            let g = self.gate
            self.gate = nil
            held = g != nil
            lock.broadcast()
            return g
        }) { gate.wait() }
        try lock.withLock {
            if failingNow { throw DisplayError("/dev/i2c-9: no device answers at 0x3c") }
            log.append(.frame(frame))
            lock.broadcast()
        }
    }

    func setOn(_ on: Bool) throws {
        try lock.withLock {
            if failingNow { throw DisplayError("/dev/i2c-9: no device answers at 0x3c") }
            log.append(.on(on))
            lock.broadcast()
        }
    }

    var writes: [Write] { lock.withLock { log } }

    /// Waits until `predicate` holds for the writes (or 10 s, a generous bound for a busy machine).
    func wait(until predicate: ([Write]) -> Bool) -> Bool { waitFor { predicate(log) } }

    /// Waits until a `show` is held at the gate.
    func waitUntilHeld() -> Bool { waitFor { held } }

    private func waitFor(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        return lock.withLock {
            while !condition() {
                if !lock.wait(until: deadline) { return condition() }
            }
            return true
        }
    }
}

final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

@Suite("#14 the running box's screen: its own thread, newest screen only, dark when idle, one line when failing (SPEC §2)")
struct ScreenPanelTests {
    static func frame(_ screen: Screen) -> RecordingScreen.Write { .frame(ScreenRenderer.render(screen, width: 128, height: 64)) }

    @Test("each screen is drawn as the renderer draws it, in order")
    func drawsScreens() {
        let glass = RecordingScreen()
        let panel = ScreenPanel(screen: glass, width: 128, height: 64, idleOffNanos: nil) { _ in }
        #expect(panel.start())
        panel.show(ScreenSamples.idle)
        #expect(panel.waitUntilDrawn(1, seconds: 10))
        panel.show(ScreenSamples.estimating(seconds: 150))
        #expect(panel.waitUntilDrawn(2, seconds: 10))
        // The drawing thread has its own name (the HIL counts its wake-ups by it).
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let drawing = tasks.first { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)) == "questbox-screen\n" }
        #expect(drawing != nil)
        // It blocks SIGTERM and SIGINT, or the signal meant for the event loop's signalfd
        // would land here and end the box.
        let status = drawing.flatMap { try? String(contentsOfFile: "/proc/self/task/\($0)/status", encoding: .utf8) } ?? ""
        let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
            .flatMap { UInt64($0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        #expect(blocked & (1 << (SIGTERM - 1)) != 0 && blocked & (1 << (SIGINT - 1)) != 0, "\(status)")
        panel.stop()
        #expect(glass.writes == [Self.frame(ScreenSamples.idle), Self.frame(ScreenSamples.estimating(seconds: 150))])
    }

    @Test("a play not saved yet: the notice is drawn on the glass below the screen, as on every surface")
    func notice() {
        let glass = RecordingScreen()
        let panel = ScreenPanel(screen: glass, width: 128, height: 64, idleOffNanos: nil) { _ in }
        panel.start()
        panel.show(ScreenSamples.reveal, notice: "Not saved yet: the box keeps this play and tries again")
        #expect(panel.waitUntilDrawn(1, seconds: 10))
        panel.stop()
        #expect(glass.writes == [.frame(ScreenRenderer.render(
            ScreenSamples.reveal, notice: "Not saved yet: the box keeps this play and tries again", width: 128, height: 64))])
    }

    @Test("screens that arrive while a frame is on the bus are skipped for the newest")
    func newestOnly() {
        let glass = RecordingScreen()
        let gate = DispatchSemaphore(value: 0)
        glass.hold(until: gate)
        let panel = ScreenPanel(screen: glass, width: 128, height: 64, idleOffNanos: nil) { _ in }
        panel.start()
        panel.show(ScreenSamples.idle)
        // The first frame is held on the "bus": the next three queue behind it.
        #expect(glass.waitUntilHeld())
        for seconds in [150, 165, 180] { panel.show(ScreenSamples.estimating(seconds: seconds)) }
        gate.signal()
        #expect(panel.waitUntilDrawn(2, seconds: 10))
        panel.stop()
        #expect(glass.writes == [Self.frame(ScreenSamples.idle), Self.frame(ScreenSamples.estimating(seconds: 180))])
    }

    @Test("dark after the idle time; the next screen is drawn while dark, then lit; a press lights it with no new frame")
    func idleOff() {
        let glass = RecordingScreen()
        let panel = ScreenPanel(screen: glass, width: 128, height: 64, idleOffNanos: 50_000_000) { _ in }
        panel.start()
        panel.show(ScreenSamples.idle)
        #expect(glass.wait { $0.contains(.on(false)) })
        #expect(panel.state.dark)
        panel.show(ScreenSamples.active)
        #expect(glass.wait { $0.count >= 4 })
        #expect(Array(glass.writes.prefix(4)) == [Self.frame(ScreenSamples.idle), .on(false), Self.frame(ScreenSamples.active), .on(true)])
        #expect(glass.wait { $0.count >= 5 })
        #expect(glass.writes[4] == .on(false))
        panel.wake()
        #expect(glass.wait { $0.count >= 6 })
        #expect(glass.writes[5] == .on(true))
        panel.stop()
    }

    @Test("with no idle limit it stays lit, and a press on a lit screen writes nothing")
    func neverDark() {
        let glass = RecordingScreen()
        let panel = ScreenPanel(screen: glass, width: 128, height: 64, idleOffNanos: 0) { _ in }
        panel.start()
        panel.show(ScreenSamples.idle)
        #expect(panel.waitUntilDrawn(1, seconds: 10))
        panel.wake()
        panel.show(ScreenSamples.reveal)
        #expect(panel.waitUntilDrawn(2, seconds: 10))
        panel.stop()
        #expect(glass.writes == [Self.frame(ScreenSamples.idle), Self.frame(ScreenSamples.reveal)])
        #expect(!panel.state.dark)
    }

    @Test("a failing screen is one line, not one per frame; it says so once when it answers again")
    func failingOnce() {
        let glass = RecordingScreen()
        glass.failing = true
        let reports = Reports()
        let panel = ScreenPanel(screen: glass, width: 128, height: 64, idleOffNanos: nil) { reports.add($0) }
        panel.start()
        for (i, sample) in ScreenSamples.tour.enumerated() {
            panel.show(sample.screen)
            #expect(panel.waitUntilDrawn(i + 1, seconds: 10))
        }
        #expect(reports.all == ["display: /dev/i2c-9: no device answers at 0x3c — the box goes on without its screen and tries again at the next screen"])
        glass.failing = false
        panel.show(ScreenSamples.summary)
        #expect(panel.waitUntilDrawn(ScreenSamples.tour.count + 1, seconds: 10))
        panel.stop()
        #expect(reports.all.count == 2 && reports.all.last == "display: recording 128×64 answers again")
        #expect(glass.writes == [Self.frame(ScreenSamples.summary)])
    }

    /// Night until `end` (then day for an hour): a wall clock the test controls.
    static func night(until end: Date) -> ScreenPanel.NightClock {
        { @Sendable in
            let left = end.timeIntervalSinceNow
            return left > 0 ? (true, Int64(left * 1e9)) : (false, 3_600_000_000_000)
        }
    }

    /// A panel with no idle limit in the middle of the night, past the idle screen it showed
    /// lit at start: the night's short limit (50 ms here) has darkened it.
    static func darkAtNight(_ glass: RecordingScreen) -> ScreenPanel {
        let panel = ScreenPanel(
            screen: glass, width: 128, height: 64, idleOffNanos: nil, night: night(until: Date() + 3_600),
            nightLitNanos: 50_000_000) { _ in }
        panel.start()
        panel.show(ScreenSamples.idle)
        #expect(glass.wait { $0.contains(.on(false)) })
        return panel
    }

    @Test("at night a new screen is drawn but stays dark; a press lights it for the night's short while")
    func nightStaysDark() {
        let glass = RecordingScreen()
        let panel = Self.darkAtNight(glass)
        panel.show(ScreenSamples.reveal)
        #expect(panel.waitUntilDrawn(2, seconds: 10))
        #expect(panel.state.dark)
        panel.wake()
        #expect(glass.wait { $0.count >= 4 })
        #expect(glass.wait { $0.count >= 5 })
        panel.stop()
        #expect(glass.writes == [Self.frame(ScreenSamples.idle), .on(false), Self.frame(ScreenSamples.reveal), .on(true), .on(false)])
    }

    @Test("a press at night that brings a new screen draws and lights it")
    func nightPressWithScreen() {
        let glass = RecordingScreen()
        let panel = Self.darkAtNight(glass)
        // The daemon shows the press's screen, then wakes the panel: one frame, lit.
        let gate = DispatchSemaphore(value: 0)
        glass.hold(until: gate)
        panel.show(ScreenSamples.estimating(seconds: 150))
        panel.wake()
        gate.signal()
        #expect(glass.wait { $0.count >= 4 })
        panel.stop()
        #expect(Array(glass.writes.prefix(4)) == [Self.frame(ScreenSamples.idle), .on(false), Self.frame(ScreenSamples.estimating(seconds: 150)), .on(true)])
    }

    @Test("always lit by day: dark when the night begins, lit again when it ends, with nothing pressed")
    func nightEdges() {
        let glass = RecordingScreen()
        // Night from 0.3 s to 0.6 s from now.
        let start = Date() + 0.3, end = Date() + 0.6
        let clock: ScreenPanel.NightClock = { @Sendable in
            let now = Date()
            if now < start { return (false, Int64(start.timeIntervalSince(now) * 1e9)) }
            if now < end { return (true, Int64(end.timeIntervalSince(now) * 1e9)) }
            return (false, 3_600_000_000_000)
        }
        let panel = ScreenPanel(screen: glass, width: 128, height: 64, idleOffNanos: 0, night: clock, nightLitNanos: 10_000_000) { _ in }
        panel.start()
        panel.show(ScreenSamples.idle)
        #expect(glass.wait { $0.count >= 3 })
        panel.stop()
        #expect(glass.writes == [Self.frame(ScreenSamples.idle), .on(false), .on(true)])
        #expect(Date() >= end)
    }

    @Test("stop ends the thread; screens after it are not drawn")
    func stops() {
        let glass = RecordingScreen()
        let panel = ScreenPanel(screen: glass, width: 128, height: 64, idleOffNanos: nil) { _ in }
        panel.start()
        panel.stop()
        panel.show(ScreenSamples.idle)
        #expect(!panel.waitUntilDrawn(1, seconds: 0.2))
        #expect(glass.writes.isEmpty)
    }
}
