/// Keeps the writer of a device that never blocks (ALSA's `null` PCM, a file) to real time,
/// a buffer ahead, as a real card would hold it; otherwise the audio loop would spin.
/// Pure: the caller passes CLOCK_MONOTONIC nanoseconds in and sleeps as told.
public struct RealTimePacer: Sendable, Equatable {
    public let rate: Int64
    public let periodFrames: Int64
    public let bufferFrames: Int64
    /// When the current run of writes started, and the frames written since.
    public private(set) var startNanos: Int64
    public private(set) var framesWritten: Int64 = 0

    public init(rate: Int, periodFrames: Int, bufferFrames: Int, at now: Int64) {
        self.rate = Int64(rate)
        self.periodFrames = Int64(periodFrames)
        self.bufferFrames = Int64(bufferFrames)
        startNanos = now
    }

    /// A new run of writes from `now`: a new device, or the stream rejoined after a park
    /// (the time parked is no underrun).
    public mutating func restart(at now: Int64) {
        startNanos = now
        framesWritten = 0
    }

    /// One period was written at `now`. Returns whether the writer had fallen more than the
    /// buffer behind (the underrun a card would have had; the run restarts from `now`), and
    /// when to write the next period (nil: at once, the buffer is not yet full).
    public mutating func wrotePeriod(at now: Int64) -> (underrun: Bool, nextWriteAt: Int64?) {
        let played = (now - startNanos) * rate / 1_000_000_000
        let underrun = framesWritten > 0 && framesWritten < played
        if underrun { restart(at: now) }
        framesWritten += periodFrames
        let ahead = framesWritten - bufferFrames
        return (underrun, ahead > 0 ? startNanos + ahead * 1_000_000_000 / rate : nil)
    }
}
