import Audio
import Foundation
import Logging
import AudioTestSupport
import Synchronization

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let soundsDirectory = repositoryRoot.appendingPathComponent("Sounds").path

/// An in-memory device: records every sample written, paced by the engine like `null`.
/// `failAfter` periods it throws, as a USB DAC pulled out would. With `parks` the engine
/// may stop writing it while idle; `rejoins` records each lead it was asked for.
final class CapturePCM: PCMDevice, @unchecked Sendable {
    let name: String
    let format: PCMFormat
    private let written = Mutex<[Int16]>([])
    private let failAfter: Int?
    private let writes = Mutex(0)
    let rejoins = Mutex<[Int]>([])
    /// Write number → frames the "hardware" is to report having run ahead by then.
    let lateAt = Mutex<[Int: Int]>([:])
    /// With a virtual clock (ns per period) each write reports three periods queued at the
    /// clock's time, the steady state of a card; `stallBefore` (write number → ns) stops the
    /// clock's writer that long first, as a stall ALSA's wrapped position does not show.
    private let periodNanos: Int64?
    let stallBefore = Mutex<[Int: Int64]>([:])
    private let clock = Mutex<Int64>(0)
    init(name: String = "capture", channels: Int = 2, failAfter: Int? = nil, parks: Bool = false,
         virtualClock periodNanos: Int64? = nil) {
        self.name = name
        self.periodNanos = periodNanos
        format = PCMFormat(channels: channels, periodFrames: 240, bufferFrames: 960, needsPacing: true, parksWhenIdle: parks)
        self.failAfter = failAfter
    }
    var samples: [Int16] { written.withLock { $0 } }
    var writeCount: Int { writes.withLock { $0 } }
    func rejoin(leadFrames: Int) throws(PCMError) {
        rejoins.withLock { $0.append(leadFrames) }
    }
    func write(_ samples: UnsafeBufferPointer<Int16>) throws(PCMError) -> PCMWriteReport {
        let n = writes.withLock { w -> Int in w += 1; return w }
        if let failAfter, n > failAfter { throw PCMError(device: name, problem: "No such device") }
        written.withLock { $0.append(contentsOf: samples) }
        let late = lateAt.withLock { $0.removeValue(forKey: n) } ?? 0
        guard let periodNanos else { return PCMWriteReport(lateFrames: late) }
        let stall = stallBefore.withLock { $0.removeValue(forKey: n) } ?? 0
        let at = clock.withLock { t -> Int64 in t += periodNanos + stall; return t }
        return PCMWriteReport(lateFrames: late, queued: .init(frames: format.bufferFrames - format.periodFrames, at: at))
    }
    func close() {}
}

/// Hands out devices from a script: nil entries fail to open.
final class ScriptedOpener: PCMOpener, @unchecked Sendable {
    private let script: Mutex<[CapturePCM?]>
    let opened = Mutex<[String]>([])
    init(_ script: [CapturePCM?]) { self.script = Mutex(script) }
    func open(_ name: String, latencyMs: Int) throws(PCMError) -> PCMDevice {
        opened.withLock { $0.append(name) }
        let next = script.withLock { s -> CapturePCM?? in s.isEmpty ? .none : .some(s.removeFirst()) }
        guard case .some(.some(let device)) = next else { throw PCMError(device: name, problem: "No such file or directory") }
        return device
    }
}

/// Polls `condition` for up to `seconds`.
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// A built executable next to the test bundle (SwiftPM builds the ones the tests depend on).
func productPath(_ name: String) -> String? {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var candidates: [String] = []
    for _ in 0..<4 {
        candidates.append(dir.appendingPathComponent(name).path)
        dir.deleteLastPathComponent()
    }
    candidates.append(repositoryRoot.appendingPathComponent(".build/debug/\(name)").path)
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// One period of `frames` frames from the mixer (the buffer starts as 99s: what is not written
/// shows), and the tokens of voices that started in it.
func render(_ mixer: inout Mixer, frames: Int) -> ([Int16], [Int]) {
    var out = [Int16](repeating: 99, count: frames * mixer.outputChannels)
    let started = out.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
    return (out, started)
}
