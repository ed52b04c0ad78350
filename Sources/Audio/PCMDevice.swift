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

/// A playback stream the engine writes periods to, from its audio thread only.
public protocol PCMDevice: AnyObject {
    var name: String { get }
    var format: PCMFormat { get }
    /// Writes interleaved frames, blocking as the device needs. Returns the underruns or
    /// suspends recovered on the way; throws when the device is gone.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws(PCMError) -> Int
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

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(PCMError) -> Int {
        guard let handle else { throw PCMError(device: name, problem: "closed") }
        var recovered: UInt32 = 0
        let err = qa_pcm_write(handle, samples.baseAddress, UInt(samples.count / format.channels), &recovered)
        guard err == 0 else { throw PCMError(device: name, problem: String(cString: qa_strerror(err))) }
        return Int(recovered)
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
