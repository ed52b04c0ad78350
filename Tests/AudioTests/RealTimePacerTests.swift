import Audio
import Testing

/// The pacing of devices that never block (SPEC §6: the engine writes in real time), on a
/// virtual clock: 48 kHz, 5 ms periods, a 20 ms buffer.
@Suite("Real-time pacing of a device that never blocks")
struct RealTimePacerTests {
    let ms: Int64 = 1_000_000

    func pacer(at t: Int64 = 1_000_000_000) -> RealTimePacer {
        RealTimePacer(rate: 48_000, periodFrames: 240, bufferFrames: 960, at: t)
    }

    @Test("the first buffer is written at once, then one period every 5 ms, never an underrun")
    func steady() {
        let t0: Int64 = 1_000_000_000
        var p = pacer(at: t0)
        for _ in 0..<4 {
            let (underrun, next) = p.wrotePeriod(at: t0)
            #expect(!underrun && next == nil)
        }
        var now = t0
        for k in 1...100 {
            let (underrun, next) = p.wrotePeriod(at: now)
            #expect(!underrun)
            #expect(next == t0 + Int64(k) * 5 * ms, "period \(k + 4) waits for the card to play period \(k)")
            now = next ?? now
        }
    }

    @Test("falling more than the buffer behind is an underrun, counted once; the run restarts from then")
    func underrun() {
        let t0: Int64 = 1_000_000_000
        var p = pacer(at: t0)
        for _ in 0..<4 { _ = p.wrotePeriod(at: t0) }
        // Late, but within the buffer: the card still had queued frames.
        #expect(p.wrotePeriod(at: t0 + 19 * ms).underrun == false)
        // 960 + 240 frames written; 30 ms is 1440 frames played: the card ran dry.
        let stall = t0 + 30 * ms
        let (underrun, next) = p.wrotePeriod(at: stall)
        #expect(underrun)
        #expect(p.startNanos == stall && p.framesWritten == 240)
        #expect(next == nil, "after the underrun the buffer is filled again at once")
        #expect(p.wrotePeriod(at: stall).underrun == false)
    }

    @Test("the time a parked stream spent asleep is no underrun once the run restarts; without the restart it would be")
    func rejoinAfterPark() {
        let t0: Int64 = 1_000_000_000
        var p = pacer(at: t0)
        for _ in 0..<4 { _ = p.wrotePeriod(at: t0) }
        let woken = t0 + 600_000 * ms                  // ten minutes parked
        var unrestarted = p
        #expect(unrestarted.wrotePeriod(at: woken).underrun, "the check itself sees a gap this long")
        p.restart(at: woken)
        for _ in 0..<4 { #expect(p.wrotePeriod(at: woken).underrun == false) }
        #expect(p.wrotePeriod(at: woken).nextWriteAt == woken + 5 * ms)
    }
}
