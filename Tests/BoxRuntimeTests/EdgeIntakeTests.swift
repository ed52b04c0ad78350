import BoardProfile
@testable import BoxRuntime
import Foundation
import GPIO
import Logging
import QuestCore
import Testing

@Suite("Edge intake: kernel-stamped edges, waiting edges, levels, socket pushes")
struct EdgeIntakeTests {
    static let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path + "/Boards"

    func intake() throws -> (FakeGPIO, EdgeIntake) {
        let gpio = FakeGPIO(chips: [.init(path: "/dev/gpiochip1", label: "questbox", lines: ["BTN_LOCK", "BTN_STOP", "BTN_UP", "BTN_DOWN", "LED_RED", "LED_GREEN", "LED_BLUE", "BUZZER"])])
        let board = try BoardGPIO(profile: try BoardProfile.load(path: Self.boards + "/questbox-sim.yaml"), backend: gpio)
        return (gpio, EdgeIntake(board: board, logger: Logger(label: "test")))
    }

    @Test("edges keep the kernel's timestamps and order; a descriptor with nothing waiting gives none; a bad one is logged, not thrown")
    func edges() throws {
        let (gpio, intake) = try intake()
        #expect(intake.waitingEdges().isEmpty)
        try gpio.edge(line: "BTN_LOCK", rising: true, atNanos: 5_000)
        try gpio.edge(line: "BTN_LOCK", rising: false, atNanos: 9_000)
        let fd = try #require(intake.descriptors.first)
        let edges = intake.edges(from: fd).edges
        #expect(edges.map(\.role) == [.lock, .lock] && edges.map(\.pressed) == [true, false] && edges.map(\.atNanos) == [5_000, 9_000])
        #expect(intake.edges(from: fd).edges.isEmpty)
        #expect(intake.edges(from: 9_999).edges.isEmpty)
    }

    @Test("waiting edges are taken without blocking, before a level read that is newer than them")
    func waiting() throws {
        let (gpio, intake) = try intake()
        try gpio.edge(line: "BTN_STOP", rising: true, atNanos: 1)
        let started = DispatchTime.now().uptimeNanoseconds
        #expect(intake.waitingEdges().map(\.role) == [.stop])
        #expect(intake.waitingEdges().isEmpty)
        #expect(DispatchTime.now().uptimeNanoseconds - started < 5_000_000_000, "never waits")
        #expect(try intake.level(of: .stop))
        #expect(try !intake.level(of: .lock))
    }

    @Test("a button held over the socket reads as pressed until it is let go; a tap leaves nothing held")
    func pushes() throws {
        var (_, intake) = try intake()
        #expect(intake.push(.up, .down) == true)
        #expect(try intake.level(of: .up))
        #expect(intake.push(.up, .up) == false)
        #expect(try !intake.level(of: .up))
        #expect(intake.push(.down, .down) == true)
        #expect(intake.push(.down, .tap) == true)
        #expect(try !intake.level(of: .down) && intake.socketHeld.isEmpty)
    }
}
