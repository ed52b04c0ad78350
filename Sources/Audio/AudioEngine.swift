import CAudioShim
import CEventLoop
import CSystemClock
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The box's sound: one PCM opened at start and kept open for the life of the process (a
/// device opened per sound pops on a Pi), and a dedicated thread that mixes the playing
/// voices and writes one period at a time. The stream never stops: when nothing has sounded
/// for a buffer's worth, a device that allows it (`parksWhenIdle`) is left to the driver's
/// silence and the thread sleeps until the next command (no wake-ups while the box idles);
/// other devices are written silence every period. A device that fails or disappears is
/// logged once and retried with backoff; the game never waits for sound.
public final class AudioEngine: Sendable {
    /// What the engine has done, for logs, tests and the benchmark.
    public struct Statistics: Sendable {
        public var device: String?
        public var format: PCMFormat?
        public var periodsWritten = 0
        public var idlePeriods = 0
        public var playingPeriods = 0
        /// Audio-thread CPU time spent on idle (silent) periods and on periods with voices.
        public var idleCPUNanos: Int64 = 0
        public var playingCPUNanos: Int64 = 0
        /// Underruns and suspends recovered with `snd_pcm_recover`, and underruns of a paced
        /// device.
        public var xruns = 0
        /// Stalls: times a write found the hardware already past what had been written (the
        /// thread was late: the listener heard silence mid-stream). One per stall, however
        /// many writes it takes to catch up, with the frames the first of them found.
        public var stalls = 0
        public var stalledFrames = 0
        public var deviceFailures = 0
        public var droppedWhileSilent = 0
        /// Times the thread went to sleep with nothing to play.
        public var parks = 0
        /// When each requested sound's first frame was handed to the device.
        public var handoffs: [Handoff] = []
    }

    public struct Handoff: Sendable, Equatable {
        public let token: Int
        public let requestedAt: Int64
        public let handedAt: Int64
        public var latencyNanos: Int64 { handedAt - requestedAt }
    }

    private enum Command: Sendable {
        case play(SoundClip, gain: Double, token: Int)
        case speak(SoundClip, gain: Double, token: Int, continuing: Bool)
        case cutSpeech
        case volume(Int)
        case mute(Bool)
        case stopAll
    }

    private struct Shared: Sendable {
        var commands: [Command] = []
        var stopping = false
        var nextToken = 1
        var requested: [Int: Int64] = [:]
        var volumePercent = 100
        var muted = false
        /// The audio thread sleeps on `wakeFD` until a command comes.
        var parked = false
        var stats = Statistics()
    }

    private let shared = Mutex(Shared())
    private let candidates: [String]
    private let latencyMs: Int
    private let opener: PCMOpener
    private let logger: Logger
    private let retryDelaysMs: [Int]
    /// Longest park without moving the stream's write position along: ALSA's position
    /// counters wrap (at the "boundary") after about six hours at 48 kHz on a 32-bit system,
    /// after which a write position left that far behind could no longer be told apart.
    private let parkedResyncMs: Int32
    /// Wakes the audio thread from a retry wait when `stop` is called, and from a park when
    /// a command comes.
    private let wakeFD: Int32
    private let thread = Mutex<pthread_t?>(nil)
    private static let handoffsKept = 4_096

    /// `candidates` are PCM names in order of preference (the board's card, then `default`).
    /// `retryDelaysMs` is the backoff while no device works (the last value repeats).
    public init(
        candidates: [String], latencyMs: Int, opener: PCMOpener = ALSAOpener(), logger: Logger,
        retryDelaysMs: [Int] = [1_000, 2_000, 5_000, 10_000, 30_000], parkedResyncMs: Int = 600_000
    ) {
        self.parkedResyncMs = Int32(clamping: max(parkedResyncMs, 1))
        self.candidates = candidates
        self.latencyMs = latencyMs
        self.opener = opener
        self.logger = logger
        self.retryDelaysMs = retryDelaysMs.isEmpty ? [1_000] : retryDelaysMs
        wakeFD = qb_eventfd_create()
    }

    deinit {
        stop()
        if wakeFD >= 0 { close(wakeFD) }
    }

    /// The PCM name for a board's `audio.card`: a bare card name becomes `plughw:CARD=…`
    /// (format conversion allowed); anything with a colon, `default` and `null` are ALSA PCM
    /// names already.
    public static func pcmName(forCard card: String) -> String {
        if card.contains(":") || card == "default" || card == "null" { return card }
        return "plughw:CARD=\(card),DEV=0"
    }

    /// Opens the first candidate that works (logging each failure on one line) and starts the
    /// audio thread. With no device the thread keeps retrying; sounds are dropped meanwhile.
    public func start() {
        guard thread.withLock({ $0 == nil }) else { return }
        let device = openFirst(logFailures: true)
        if let device {
            shared.withLock {
                $0.stats.device = device.name
                $0.stats.format = device.format
            }
        } else {
            logger.warning("no sound device: the box goes on with LED and buzzer", metadata: ["tried": "\(candidates.joined(separator: ", "))"])
        }
        let body = ThreadBody { [self] in self.audioThread(initial: device) }
        var tid = pthread_t()
        let context = Unmanaged.passRetained(body).toOpaque()
        let err = pthread_create(&tid, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        if err != 0 {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            device?.close()
            logger.error("cannot start the audio thread: the box goes on without sound", metadata: ["errno": "\(err)"])
            return
        }
        thread.withLock { $0 = tid }
    }

    /// Stops the thread after its current period and closes the device.
    public func stop() {
        guard let tid = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) else { return }
        shared.withLock { $0.stopping = true }
        wake()
        pthread_join(tid, nil)
    }

    /// Queues a clip; returns a token whose hand-off time appears in `statistics`.
    /// `requestedAt` (CLOCK_MONOTONIC ns) is the moment latency is measured from, e.g. the
    /// button edge's kernel timestamp; default now.
    @discardableResult
    public func play(_ clip: SoundClip, gain: Double = 1, requestedAt: Int64? = nil) -> Int {
        queue(requestedAt: requestedAt) { .play(clip, gain: gain, token: $0) }
    }

    /// #35: the voice says `clip` instead of whatever it was saying (`continuing`: after the
    /// pieces it is saying), once no sound plays (the mixer's speech lane). Returns a token as
    /// `play` does: its hand-off is the piece's first sample.
    @discardableResult
    public func speak(_ clip: SoundClip, gain: Double = 1, continuing: Bool = false, requestedAt: Int64? = nil) -> Int {
        queue(requestedAt: requestedAt) { .speak(clip, gain: gain, token: $0, continuing: continuing) }
    }

    /// #35: the voice stops mid-word; sounds play on.
    public func cutSpeech() { send(.cutSpeech) { _ in } }

    private func queue(requestedAt: Int64?, _ command: (Int) -> Command) -> Int {
        let at = requestedAt ?? questbox_monotonic_nanos()
        let (token, wasParked) = shared.withLock { s in
            let token = s.nextToken
            s.nextToken += 1
            s.requested[token] = at
            s.commands.append(command(token))
            return (token, Self.unpark(&s))
        }
        if wasParked { wake() }
        return token
    }

    public func setVolume(percent: Int) {
        send(.volume(percent)) { $0.volumePercent = percent }
    }

    public func setMuted(_ muted: Bool) {
        send(.mute(muted)) { $0.muted = muted }
    }

    public func stopAll() { send(.stopAll) { _ in } }

    private func send(_ command: Command, _ update: (inout Shared) -> Void) {
        let wasParked = shared.withLock { s in
            update(&s)
            s.commands.append(command)
            return Self.unpark(&s)
        }
        if wasParked { wake() }
    }

    /// Clears the parked flag; true when the caller must wake the thread (once per park).
    private static func unpark(_ s: inout Shared) -> Bool {
        defer { s.parked = false }
        return s.parked
    }

    public var statistics: Statistics { shared.withLock { $0.stats } }

    /// True while a device is open and being written.
    public var isPlaying: Bool { shared.withLock { $0.stats.device != nil } }

    // MARK: the audio thread

    private func openFirst(logFailures: Bool) -> PCMDevice? {
        for name in candidates {
            do {
                let device = try opener.open(name, latencyMs: latencyMs)
                let f = device.format
                logger.info("sound device open", metadata: [
                    "device": "\(name)", "rate": "\(f.rate)", "channels": "\(f.channels)",
                    "period": "\(f.periodFrames)", "buffer": "\(f.bufferFrames)",
                ])
                return device
            } catch {
                if logFailures { logger.warning("sound device unavailable", metadata: ["error": "\(error)"]) }
            }
        }
        return nil
    }

    private func audioThread(initial: PCMDevice?) {
        qa_block_async_signals()
        // Named, so top, ps -L and the HIL figures tell it from the event loop.
        qa_name_current_thread("questbox-audio")
        if qa_try_realtime(10) == 1 { logger.debug("audio thread runs SCHED_FIFO") }
        var device = initial
        var mixer = Mixer(outputChannels: device?.format.channels ?? 2)
        var buffer: [Int16] = []
        var retry = 0
        var pacer: RealTimePacer?                  // set with each device
        var lastCPU = qa_thread_cpu_ns()
        // Silence written since the last sound: a buffer's worth means the stream is running
        // and the last sound is all queued, so the thread may park.
        var silentFrames = 0
        var rejoining = false
        // The last write found the hardware ahead: the writes catching up are the same stall.
        var catchingUp = false
        var deadline = QueueDeadline(rate: SoundClip.sampleRate)   // set with each device

        func adopt(_ d: PCMDevice) {
            let settings = shared.withLock { s -> (Int, Bool) in
                s.stats.device = d.name
                s.stats.format = d.format
                return (s.volumePercent, s.muted)
            }
            mixer = Mixer(outputChannels: d.format.channels)
            mixer.setVolume(percent: settings.0)
            mixer.setMuted(settings.1)
            buffer = [Int16](repeating: 0, count: d.format.periodFrames * d.format.channels)
            pacer = RealTimePacer(rate: d.format.rate, periodFrames: d.format.periodFrames,
                                  bufferFrames: d.format.bufferFrames, at: questbox_monotonic_nanos())
            deadline = QueueDeadline(rate: d.format.rate)
            retry = 0
            silentFrames = 0
            rejoining = false
        }
        if let device { adopt(device) }
        func drop(_ lost: PCMDevice, _ error: any Error) {
            logger.error("sound device lost: the box goes on with LED and buzzer, retrying", metadata: ["error": "\(error)"])
            lost.close()
            device = nil
            mixer.stopAll()
            shared.withLock {
                $0.stats.device = nil
                $0.stats.deviceFailures += 1
            }
        }

        while true {
            let (commands, stopping) = shared.withLock { s -> ([Command], Bool) in
                defer { s.commands.removeAll(keepingCapacity: true) }
                return (s.commands, s.stopping)
            }
            if stopping { break }
            guard let current = device else {
                dropWhileSilent(commands)
                let delay = retryDelaysMs[min(retry, retryDelaysMs.count - 1)]
                retry += 1
                if waitForWake(ms: delay) { continue }
                if let reopened = openFirst(logFailures: false) {
                    logger.info("sound device back", metadata: ["device": "\(reopened.name)"])
                    device = reopened
                    adopt(reopened)
                }
                continue
            }
            if rejoining {
                rejoining = false
                do {
                    try current.rejoin(leadFrames: current.format.rejoinLeadFrames)
                } catch {
                    drop(current, error)
                    continue
                }
                pacer?.restart(at: questbox_monotonic_nanos())
                deadline.forget()                  // the time parked is no stall
            }
            if commands.isEmpty, mixer.activeVoices == 0, current.format.parksWhenIdle,
                silentFrames >= current.format.bufferFrames
            {
                // Woken by a command or by the resync timeout: either way the write position
                // is brought up to the hardware first (above, on the next pass).
                if park() { break }
                rejoining = true
                continue
            }
            for command in commands {
                switch command {
                case .play(let clip, let gain, let token): mixer.play(clip, gain: gain, token: token)
                case .speak(let clip, let gain, let token, let continuing): forget(mixer.speak(clip, gain: gain, token: token, continuing: continuing))
                case .cutSpeech: forget(mixer.cutSpeech())
                case .volume(let p): mixer.setVolume(percent: p)
                case .mute(let m): mixer.setMuted(m)
                case .stopAll: mixer.stopAll()
                }
            }
            let playing = mixer.activeVoices > 0
            let started = buffer.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
            silentFrames = playing || !started.isEmpty ? 0 : silentFrames + current.format.periodFrames
            let handedAt = questbox_monotonic_nanos()
            do {
                let report = try buffer.withUnsafeBufferPointer { try current.write($0) }
                // The whole iteration's CPU (mixing, writing, pacing, locks) since the last one.
                let cpuNow = qa_thread_cpu_ns()
                var late = report.lateFrames
                if let queued = report.queued, report.recovered == 0 {
                    late = QueueDeadline.stalledFrames(
                        positionLate: late, clockLate: deadline.lateFrames(at: queued.at),
                        periodFrames: current.format.periodFrames)
                    deadline.wrote(at: queued.at, queuedBefore: queued.frames, frames: current.format.periodFrames)
                } else {
                    deadline.forget()
                }
                let stalledFrames = catchingUp ? 0 : late
                catchingUp = late > 0
                record(started: started, handedAt: handedAt, playing: playing, cpu: cpuNow - lastCPU,
                       recovered: report.recovered, stalledFrames: stalledFrames, rate: current.format.rate)
                lastCPU = cpuNow
            } catch {
                drop(current, error)
                continue
            }
            if current.format.needsPacing, let (underrun, nextWriteAt) = pacer?.wrotePeriod(at: questbox_monotonic_nanos()) {
                // The underrun such a device cannot have is the one a card would have had:
                // counted as an xrun.
                if underrun { shared.withLock { $0.stats.xruns += 1 } }
                if let nextWriteAt { qa_sleep_until(nextWriteAt) }
            }
        }
        device?.close()
        shared.withLock { $0.stats.device = nil }
    }

    /// Sleeps until a command or `stop` comes, or `parkedResyncMs` passes (the driver plays
    /// silence meanwhile). Returns true when stopping.
    private func park() -> Bool {
        qb_eventfd_drain(wakeFD)
        // Checked again under the lock after the drain: a command queued before this point
        // is seen here, one queued after it finds `parked` set and signals the eventfd.
        let parking = shared.withLock { s -> Bool in
            guard s.commands.isEmpty, !s.stopping else { return false }
            s.parked = true
            s.stats.parks += 1
            return true
        }
        if parking {
            var fd = wakeFD
            var ready: Int32 = 0
            _ = qb_poll_readable(&fd, 1, parkedResyncMs, &ready)
            qb_eventfd_drain(wakeFD)
        }
        return shared.withLock { s in
            s.parked = false
            return s.stopping
        }
    }

    private func record(
        started: [Int], handedAt: Int64, playing: Bool, cpu: Int64, recovered: Int, stalledFrames: Int, rate: Int
    ) {
        shared.withLock { s in
            s.stats.periodsWritten += 1
            if playing || !started.isEmpty {
                s.stats.playingPeriods += 1
                s.stats.playingCPUNanos += cpu
            } else {
                s.stats.idlePeriods += 1
                s.stats.idleCPUNanos += cpu
            }
            s.stats.xruns += recovered
            if stalledFrames > 0 {
                s.stats.stalls += 1
                s.stats.stalledFrames += stalledFrames
            }
            for token in started {
                guard let requested = s.requested.removeValue(forKey: token) else { continue }
                s.stats.handoffs.append(Handoff(token: token, requestedAt: requested, handedAt: handedAt))
            }
            if s.stats.handoffs.count > Self.handoffsKept { s.stats.handoffs.removeFirst(s.stats.handoffs.count - Self.handoffsKept) }
        }
        if recovered > 0 { logger.warning("sound underrun recovered", metadata: ["count": "\(recovered)"]) }
        if stalledFrames > 0 {
            let tenthsMs = (stalledFrames * 10_000 + rate / 2) / max(rate, 1)
            logger.warning("sound underrun: the card played silence, the audio thread was late",
                           metadata: ["frames": "\(stalledFrames)", "ms": "\(tenthsMs / 10).\(tenthsMs % 10)"])
        }
    }

    /// An utterance replaced or cut before its first word: no hand-off will come for it.
    private func forget(_ tokens: [Int]) {
        guard !tokens.isEmpty else { return }
        shared.withLock { s in for t in tokens { s.requested[t] = nil } }
    }

    private func dropWhileSilent(_ commands: [Command]) {
        let dropped = commands.compactMap { c -> Int? in
            switch c {
            case .play(_, _, let t), .speak(_, _, let t, _): t
            case .volume, .mute, .stopAll, .cutSpeech: nil
            }
        }
        guard !dropped.isEmpty else { return }
        shared.withLock { s in
            s.stats.droppedWhileSilent += dropped.count
            for t in dropped { s.requested[t] = nil }
        }
    }

    /// Sleeps up to `ms`, returning true early when `stop` wakes it.
    private func waitForWake(ms: Int) -> Bool {
        var fd = wakeFD
        var ready: Int32 = 0
        guard qb_poll_readable(&fd, 1, Int32(ms), &ready) > 0 else { return false }
        qb_eventfd_drain(wakeFD)
        return true
    }

    private func wake() { qb_eventfd_signal(wakeFD) }
}

private final class ThreadBody {
    let run: () -> Void
    init(run: @escaping () -> Void) { self.run = run }
}
