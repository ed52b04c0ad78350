/// When a hardware stream runs dry if nothing more is written: the moment of the last
/// write's check plus what was queued then and what that write added.
///
/// ALSA's hardware position is taken modulo the buffer, so a stall longer than the whole
/// buffer (a kernel, or an emulator's whole machine, stopped for more than its 20 ms) looks to
/// `avail` like a short one or none: the card replays the buffer's old contents and the rest
/// of the sound comes a buffer late, unreported. The clock still sees such a stall. Pure: the
/// caller passes CLOCK_MONOTONIC nanoseconds in.
public struct QueueDeadline: Sendable, Equatable {
    public let rate: Int64
    /// When the queue runs dry; nil while unknown (before the stream runs, after a park).
    public private(set) var dryAt: Int64?

    public init(rate: Int) {
        self.rate = Int64(max(rate, 1))
    }

    /// Frames the hardware played past the end of the queue by `now` (0 when in time or
    /// unknown).
    public func lateFrames(at now: Int64) -> Int {
        guard let dryAt, now > dryAt else { return 0 }
        return Int((now - dryAt) * rate / 1_000_000_000)
    }

    /// A write of `frames` landed at `now` with `queuedBefore` frames still ahead of the
    /// hardware.
    public mutating func wrote(at now: Int64, queuedBefore: Int, frames: Int) {
        dryAt = now + Int64(max(queuedBefore, 0) + frames) * 1_000_000_000 / rate
    }

    /// The stream's timing is no longer known (not running yet, parked, recovered).
    public mutating func forget() { dryAt = nil }

    /// The lateness to report for a write: the position's figure, unless the clock saw at
    /// least a period more, which only a stall hidden by the wrap can give (the position
    /// may lag the hardware by up to a period, never lead it).
    public static func stalledFrames(positionLate: Int, clockLate: Int, periodFrames: Int) -> Int {
        clockLate >= positionLate + periodFrames ? clockLate : positionLate
    }
}
