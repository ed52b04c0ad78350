import CAudioShim

/// The format a device agreed to.
public struct PCMFormat: Sendable, Equatable {
    public var rate: Int
    public var channels: Int
    public var periodFrames: Int
    public var bufferFrames: Int
    /// The device takes data as fast as it is given (ALSA `null`, `file`): the engine keeps
    /// real time itself.
    public var needsPacing: Bool
    /// The stream keeps playing (the driver's silence) while nobody writes it, so the engine
    /// may sleep while nothing sounds and `rejoin` when the next sound comes.
    public var parksWhenIdle: Bool

    /// How far ahead of the hardware a write lands after a park: all but one period of the
    /// buffer, as much as a thread that never parked keeps queued, so this thread (and,
    /// under emulation, the device's timer) may be late without the sound landing behind
    /// the hardware. Half a buffer garbled sounds in the HIL rig.
    public var rejoinLeadFrames: Int { min(bufferFrames, max(2 * periodFrames, bufferFrames - periodFrames)) }

    public init(
        rate: Int = SoundClip.sampleRate, channels: Int, periodFrames: Int, bufferFrames: Int, needsPacing: Bool,
        parksWhenIdle: Bool = false
    ) {
        self.rate = rate
        self.channels = channels
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
        self.needsPacing = needsPacing
        self.parksWhenIdle = parksWhenIdle
    }
}

public struct PCMError: Error, CustomStringConvertible, Sendable {
    public let device: String
    public let problem: String
    public var description: String { "sound device \(device): \(problem)" }
    public init(device: String, problem: String) {
        self.device = device
        self.problem = problem
    }
}

/// What happened to the stream on the way to a write.
public struct PCMWriteReport: Sendable, Equatable {
    /// Underruns or suspends the device reported and `snd_pcm_recover` cleared.
    public var recovered: Int
    /// Frames the hardware had played past what was written when the write began: a stream
    /// that never stops on underrun plays silence instead of reporting one, so this is how
    /// a late writer shows up (0 on devices that cannot tell). While the writer catches up,
    /// the writes after the first late one may report lateness too.
    public var lateFrames: Int
    /// What was still queued ahead of the hardware when the data landed; nil on devices that
    /// cannot tell. `QueueDeadline` works out from it the stalls too long for `lateFrames`
    /// to see.
    public var queued: Queued?
    public init(recovered: Int = 0, lateFrames: Int = 0, queued: Queued? = nil) {
        self.recovered = recovered
        self.lateFrames = lateFrames
        self.queued = queued
    }

    /// Frames queued ahead of the hardware, and the moment (CLOCK_MONOTONIC ns) that was so.
    public struct Queued: Sendable, Equatable {
        public var frames: Int
        public var at: Int64
        public init(frames: Int, at: Int64) {
            self.frames = frames
            self.at = at
        }
    }
}

/// A playback stream the engine writes periods to, from its audio thread only.
public protocol PCMDevice: AnyObject {
    var name: String { get }
    var format: PCMFormat { get }
    /// Writes interleaved frames, blocking as the device needs; throws when the device is
    /// gone.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws(PCMError) -> PCMWriteReport
    /// After a pause in writing (a parked engine), makes the next write sound `leadFrames`
    /// from now rather than behind the hardware.
    func rejoin(leadFrames: Int) throws(PCMError)
    func close()
}

/// Opens devices by name; the engine reopens through it after a device disappears.
public protocol PCMOpener: Sendable {
    func open(_ name: String, latencyMs: Int) throws(PCMError) -> PCMDevice
}

/// A libasound playback PCM, opened once and kept open.
public final class ALSAPCM: PCMDevice {
    public let name: String
    public let format: PCMFormat
    private var handle: OpaquePointer?

    /// 5 ms periods; the buffer is the latency target (the board profile's `latency_ms`).
    public init(name: String, latencyMs: Int, periodMs: Int = 5) throws(PCMError) {
        self.name = name
        var raw: OpaquePointer?
        var config = qa_config()
        var stage: UnsafePointer<CChar>?
        let err = qa_pcm_open(
            name, UInt32(SoundClip.sampleRate), 2, UInt32(periodMs * 1_000), UInt32(max(latencyMs, 2 * periodMs) * 1_000),
            &raw, &config, &stage)
        guard err == 0, let raw else {
            let step = stage.map { String(cString: $0) } ?? "open"
            throw PCMError(device: name, problem: "\(step) failed: \(String(cString: qa_strerror(err)))")
        }
        handle = raw
        format = PCMFormat(
            rate: Int(config.rate), channels: Int(config.channels), periodFrames: Int(config.period_frames),
            bufferFrames: Int(config.buffer_frames), needsPacing: config.needs_pacing != 0,
            parksWhenIdle: config.can_park != 0)
    }

    deinit { close() }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(PCMError) -> PCMWriteReport {
        guard let handle else { throw PCMError(device: name, problem: "closed") }
        var recovered: UInt32 = 0
        var late: UInt = 0
        var queued = -1
        var checkedAt: Int64 = 0
        let err = qa_pcm_write(
            handle, samples.baseAddress, UInt(samples.count / format.channels), &recovered, &late, &queued, &checkedAt)
        guard err == 0 else { throw PCMError(device: name, problem: String(cString: qa_strerror(err))) }
        return PCMWriteReport(
            recovered: Int(recovered), lateFrames: Int(late), queued: queued >= 0 ? .init(frames: queued, at: checkedAt) : nil)
    }

    public func rejoin(leadFrames: Int) throws(PCMError) {
        guard let handle else { throw PCMError(device: name, problem: "closed") }
        let err = qa_pcm_rejoin(handle, UInt(leadFrames))
        guard err == 0 else { throw PCMError(device: name, problem: String(cString: qa_strerror(err))) }
    }

    public func close() {
        if let handle { qa_pcm_close(handle) }
        handle = nil
    }

    /// libasound's messages go nowhere; the engine logs its own one-liners.
    public static func quietLibraryErrors() { qa_quiet_library_errors() }
}

public struct ALSAOpener: PCMOpener {
    public init() {}
    public func open(_ name: String, latencyMs: Int) throws(PCMError) -> PCMDevice {
        try ALSAPCM(name: name, latencyMs: latencyMs)
    }
}
