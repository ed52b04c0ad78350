import Foundation
import Testing
@testable import Display
@testable import QuestCore
import ScreenRender

/// A bus that keeps every transaction and can be told to fail, to decode what the driver sent.
final class RecordingI2CBus: I2CBus {
    enum Transaction: Equatable {
        case byteData(UInt8, UInt8)
        case block(UInt8, [UInt8])
    }
    var transactions: [Transaction] = []
    /// Fail the write with this index (0-based, counted over all writes) once.
    var failAt: Int?
    struct Failure: Error {}

    func writeByteData(command: UInt8, value: UInt8) throws {
        try note(.byteData(command, value))
    }

    func writeBlock(command: UInt8, bytes: ArraySlice<UInt8>) throws {
        #expect((1...32).contains(bytes.count), "an SMBus block carries 1…32 bytes")
        try note(.block(command, Array(bytes)))
    }

    private func note(_ transaction: Transaction) throws {
        if let failAt, failAt == transactions.count {
            self.failAt = nil
            throw Failure()
        }
        transactions.append(transaction)
    }

    /// Feeds the transactions since `from` to a model of the controller.
    func decode(into model: inout OLEDModel, from: Int = 0) throws {
        for transaction in transactions[from...] {
            switch transaction {
            case .byteData(let control, let value): try model.receive(command: control, value: value)
            case .block(let control, let bytes): try model.receive(block: control, bytes: bytes)
            }
        }
    }
}

@Suite("The OLED driver: SSD1306/SH1106 over SMBus, decoded back into the picture (#14)")
struct OLEDDriverTests {
    static func estimating(_ seconds: Int) -> MonoFrame {
        ScreenRenderer.render(.estimating(EstimatingScreen(
            questName: "Morning Quest", taskName: "Tooth Time", taskNumber: 1, taskCount: 3, estimateSeconds: seconds, hint: nil)))
    }

    static let reveal = ScreenRenderer.render(.reveal(RevealScreen(
        taskName: "Tooth Time", estimatedSeconds: 150, actualSeconds: 161.4, differenceSeconds: -11.4, accuracyPercent: 92.9,
        rating: .spotOn, feedback: Feedback(headline: "Nailed it!", detail: "0:11 short"), xpGained: 25, isPersonalBest: true,
        isCalibration: false, isLastTask: false)))

    @Test("start sets the SSD1306 up, draws the frame while dark, then lights it: the decoded glass is the frame")
    func startSSD1306() throws {
        let bus = RecordingI2CBus()
        let driver = try OLEDDriver(bus: bus, controller: .ssd1306, height: 64, contrast: 200)
        try driver.start(showing: Self.estimating(150))
        var model = OLEDModel(controller: .ssd1306)
        try bus.decode(into: &model)
        #expect(model.frame == Self.estimating(150))
        #expect(model.isOn && model.chargePumpOn && model.contrast == 200 && model.multiplexRatio == 64)
        // Lit only after the last pixel: the power-up noise in memory is never seen.
        #expect(bus.transactions.last == .byteData(0x00, 0xAF))
        #expect(!bus.transactions.dropLast().contains(.byteData(0x00, 0xAF)))
        // Commands one per byte-data write (control 0x00), pixels in blocks (control 0x40) only.
        for transaction in bus.transactions {
            switch transaction {
            case .byteData(let control, _): #expect(control == 0x00)
            case .block(let control, _): #expect(control == 0x40)
            }
        }
        #expect(driver.isOn)
    }

    @Test("the SH1106 gets its own set-up (DC-DC, no charge pump command) and pixels from column 2")
    func startSH1106() throws {
        let bus = RecordingI2CBus()
        let driver = try OLEDDriver(bus: bus, controller: .sh1106, height: 64)
        try driver.start(showing: Self.reveal)
        var model = OLEDModel(controller: .sh1106)
        try bus.decode(into: &model)
        #expect(model.frame == Self.reveal)
        #expect(model.isOn && model.chargePumpOn)
        #expect(!bus.transactions.contains(.byteData(0x00, 0x8D)))
        #expect(!bus.transactions.contains(.byteData(0x00, 0x20)), "SH1106 has page addressing only")
        for page in 0..<8 {
            #expect(model.memory[page * 132] == 0 && model.memory[page * 132 + 1] == 0 && model.memory[page * 132 + 130] == 0)
        }
    }

    @Test("a 128×32 SSD1306 scans 32 rows from 4 pages")
    func smallSSD1306() throws {
        let bus = RecordingI2CBus()
        let frame = ScreenRenderer.render(.estimating(EstimatingScreen(
            questName: "Morning Quest", taskName: "Tooth Time", taskNumber: 1, taskCount: 3, estimateSeconds: 90, hint: nil)), height: 32)
        let driver = try OLEDDriver(bus: bus, controller: .ssd1306, height: 32)
        try driver.start(showing: frame)
        var model = OLEDModel(controller: .ssd1306)
        try bus.decode(into: &model)
        #expect(model.multiplexRatio == 32)
        #expect(model.frame == frame)
        #expect(bus.transactions.contains(.byteData(0x00, 0xB3)) && !bus.transactions.contains(.byteData(0x00, 0xB4)))
    }

    @Test("sizes and turns the controllers do not have are refused with a message")
    func refusedShapes() {
        #expect(throws: DisplayError.self) { try OLEDDriver(bus: RecordingI2CBus(), controller: .sh1106, height: 32) }
        #expect(throws: DisplayError.self) { try OLEDDriver(bus: RecordingI2CBus(), controller: .ssd1306, height: 48) }
        #expect(throws: DisplayError.self) { try OLEDDriver(bus: RecordingI2CBus(), controller: .ssd1306, height: 64, rotation: 90) }
    }

    @Test("a module mounted upside down (rotation 180) shows the frame upright")
    func rotated() throws {
        let bus = RecordingI2CBus()
        let driver = try OLEDDriver(bus: bus, controller: .ssd1306, height: 64, rotation: 180)
        try driver.start(showing: Self.reveal)
        var model = OLEDModel(controller: .ssd1306)
        try bus.decode(into: &model)
        // The model shows the glass in the module's own orientation: turned, the viewer sees it upright.
        #expect(model.frame == Self.reveal.rotated180)
        #expect(model.frame.rotated180 == Self.reveal)
    }

    @Test("only what changed goes out: the same frame sends nothing, an estimate step sends the digits' columns")
    func sendsChangesOnly() throws {
        let bus = RecordingI2CBus()
        let driver = try OLEDDriver(bus: bus, controller: .ssd1306, height: 64)
        try driver.start(showing: Self.estimating(150))
        let full = driver.lastTraffic
        try driver.show(Self.estimating(150))
        #expect(driver.lastTraffic == BusTraffic())

        let before = bus.transactions.count
        try driver.show(Self.estimating(165))
        let step = driver.lastTraffic
        var model = OLEDModel(controller: .ssd1306)
        try bus.decode(into: &model)
        #expect(model.frame == Self.estimating(165))
        #expect(step.transactions == bus.transactions.count - before)
        #expect(step.bytes > 0 && step.bytes * 4 < full.bytes, "a step \(step.bytes) B against a full frame \(full.bytes) B")

        // The targets, from the bytes sent (i2c-stub is not a real bus): a full frame
        // ≤ 40 ms and a digits-only change ≤ 10 ms at 400 kHz.
        #expect(full.seconds(atHertz: 400_000) <= 0.040, "full frame \(full.seconds(atHertz: 400_000)) s")
        #expect(step.seconds(atHertz: 400_000) <= 0.010, "estimate step \(step.seconds(atHertz: 400_000)) s")
    }

    @Test("a full frame is 8 pages of 128 bytes in blocks of 32, each page addressed once")
    func fullFrameShape() throws {
        let bus = RecordingI2CBus()
        let driver = try OLEDDriver(bus: bus, controller: .ssd1306, height: 64)
        try driver.show(Self.reveal)
        let blocks = bus.transactions.compactMap { if case .block(_, let bytes) = $0 { bytes.count } else { nil } }
        #expect(blocks == Array(repeating: 32, count: 32))
        let pageCommands = bus.transactions.filter { if case .byteData(0x00, let value) = $0 { (0xB0...0xB7).contains(value) } else { false } }
        #expect(pageCommands.count == 8)
        #expect(driver.lastTraffic == BusTraffic(transactions: 32 + 24, bytes: 32 * 34 + 24 * 3))
    }

    @Test("after a failed write the next frame goes out whole, and the glass ends right")
    func failureResends() throws {
        let bus = RecordingI2CBus()
        let driver = try OLEDDriver(bus: bus, controller: .ssd1306, height: 64)
        try driver.start(showing: Self.estimating(150))
        bus.failAt = bus.transactions.count + 3
        #expect(throws: RecordingI2CBus.Failure.self) { try driver.show(Self.reveal) }
        try driver.show(Self.estimating(165))
        #expect(driver.lastTraffic.bytes == 32 * 34 + 24 * 3, "the whole frame again")
        var model = OLEDModel(controller: .ssd1306)
        try bus.decode(into: &model)
        #expect(model.frame == Self.estimating(165))
    }

    @Test("dark and lit: one command each, none when already so; memory keeps the picture")
    func power() throws {
        let bus = RecordingI2CBus()
        let driver = try OLEDDriver(bus: bus, controller: .ssd1306, height: 64)
        try driver.start(showing: Self.reveal)
        let count = bus.transactions.count
        try driver.setOn(false)
        try driver.setOn(false)
        #expect(Array(bus.transactions[count...]) == [.byteData(0x00, 0xAE)])
        try driver.setOn(true)
        try driver.setContrast(10)
        var model = OLEDModel(controller: .ssd1306)
        try bus.decode(into: &model)
        #expect(model.isOn && model.contrast == 10 && model.frame == Self.reveal)
    }

    @Test("the model refuses what no driver of ours sends: other control bytes, blocks over 32")
    func modelRefuses() {
        var model = OLEDModel(controller: .ssd1306)
        #expect(throws: OLEDModel.DecodeError.self) { try model.receive(command: 0x80, value: 0xAF) }
        #expect(throws: OLEDModel.DecodeError.self) { try model.receive(block: 0x40, bytes: [UInt8](repeating: 1, count: 33)) }
    }

    @Test("an OLEDScreen starts on its first frame and keeps a dark request made before it")
    func screenStartsLazily() throws {
        let bus = RecordingI2CBus()
        let screen = OLEDScreen(driver: try OLEDDriver(bus: bus, controller: .ssd1306, height: 64), summary: "test")
        try screen.setOn(false)
        #expect(bus.transactions.isEmpty)
        try screen.show(Self.reveal)
        var model = OLEDModel(controller: .ssd1306)
        try bus.decode(into: &model)
        #expect(!model.isOn && model.frame == Self.reveal)
        try screen.setOn(true)
        try bus.decode(into: &model, from: bus.transactions.count - 1)
        #expect(model.isOn)
    }
}

/// A failing frame comparison names the frames' size and lit pixels, not 8192 numbers.
extension MonoFrame: CustomTestStringConvertible {
    public var testDescription: String { "\(width)×\(height) frame, \(litCount) pixels lit" }
}
