import Audio
import AudioTestSupport
import BoxRuntime
import Foundation
import QuestCore
import Testing

@Suite("The always-open ALSA engine (SPEC §6)", .serialized)
struct AudioEngineTests {
    @Test("a bare card name becomes plughw:CARD=…; PCM names pass through")
    func pcmNames() {
        #expect(AudioEngine.pcmName(forCard: "Headphones") == "plughw:CARD=Headphones,DEV=0")
        #expect(AudioEngine.pcmName(forCard: "default") == "default")
        #expect(AudioEngine.pcmName(forCard: "null") == "null")
        #expect(AudioEngine.pcmName(forCard: "hw:Loopback,0,0") == "hw:Loopback,0,0")
    }

    @Test("ALSA's null PCM through real libasound: S16_LE 48 kHz stereo, 5 ms periods; idle, the thread parks; a sound wakes it, in real time")
    func nullDevice() throws {
        ALSAPCM.quietLibraryErrors()
        let pcm = try ALSAPCM(name: "null", latencyMs: 20)
        #expect(pcm.format.rate == 48_000 && pcm.format.channels == 2)
        #expect(pcm.format.periodFrames == 240 && pcm.format.bufferFrames == 960)
        #expect(pcm.format.needsPacing && pcm.format.parksWhenIdle)
        pcm.close()

        let engine = AudioEngine(candidates: ["null"], latencyMs: 20, logger: quiet)
        engine.start()
        #expect(engine.isPlaying)
        #expect(eventually { engine.statistics.parks == 1 })
        usleep(300_000)
        let idle = engine.statistics.periodsWritten
        // A buffer of silence (4 periods) starts the stream, then nothing: a thread writing
        // silence every period would have written 60 more in 0.3 s.
        #expect(idle >= 4 && idle <= 8, "periods written before parking: \(idle)")
        let token = engine.play(rampClip(frames: 4_800))  // 100 ms
        #expect(eventually { engine.statistics.handoffs.contains { $0.token == token } })
        let t0 = Date()
        #expect(eventually { engine.statistics.parks == 2 })
        let playedFor = Date().timeIntervalSince(t0)
        let s = engine.statistics
        engine.stop()
        // 20 periods of sound and 4 of silence, paced in real time: not a spin, not a stall.
        #expect(s.periodsWritten - idle >= 24 && s.periodsWritten - idle <= 30, "periods for one 100 ms sound: \(s.periodsWritten - idle)")
        #expect(playedFor > 0.05 && playedFor < 2, "the sound and its tail took \(playedFor) s")
        // No check of s.xruns here: a machine busy with other tests may stall this thread
        // past the 20 ms buffer, which is a real underrun. When the pacer counts one, and
        // that a park is none, is tested on a virtual clock (RealTimePacerTests).
        #expect(!engine.isPlaying)
    }

    @Test("a parked engine wakes for every command, rejoins the stream a buffer less a period ahead, plays the sound, parks again")
    func parkAndWake() {
        let device = CapturePCM(parks: true)
        let engine = AudioEngine(candidates: ["capture"], latencyMs: 20, opener: ScriptedOpener([device]), logger: quiet)
        engine.start()
        #expect(eventually { engine.statistics.parks == 1 })
        let writes = device.writeCount
        usleep(100_000)
        #expect(device.writeCount == writes, "no writes while parked")
        #expect(device.rejoins.withLock { $0 }.isEmpty)

        let clip = SoundClip(samples: [Int16](repeating: 9_000, count: 480), channels: 1)
        let token = engine.play(clip)
        #expect(eventually { engine.statistics.handoffs.contains { $0.token == token } })
        #expect(eventually { engine.statistics.parks == 2 })
        #expect(device.rejoins.withLock { $0 } == [720], "lead: the 960-frame buffer less one period")
        let out = device.samples
        let first = out.firstIndex(of: 9_000)
        #expect(first == 2 * 240 * writes, "the sound is the first thing written after the park")
        #expect(out.filter { $0 == 9_000 }.count == 2 * 480)

        // Volume and mute are commands too: each wakes the thread, which parks again.
        engine.setVolume(percent: 50)
        #expect(eventually { engine.statistics.parks == 3 })

        // Sounds queued at every phase of parking and waking: none is lost or late.
        var rng = SystemRandomNumberGenerator()
        var tokens: [Int] = []
        for _ in 0..<40 {
            tokens.append(engine.play(clip))
            usleep(UInt32.random(in: 0...60_000, using: &rng))
        }
        #expect(eventually { Set(engine.statistics.handoffs.map(\.token)).isSuperset(of: tokens) })
        #expect(engine.statistics.parks > 3)
        engine.stop()
    }

    @Test("a long park brings the stream's write position up to the hardware now and then, writing nothing")
    func parkedResync() {
        let device = CapturePCM(parks: true)
        let engine = AudioEngine(
            candidates: ["capture"], latencyMs: 20, opener: ScriptedOpener([device]), logger: quiet, parkedResyncMs: 30)
        engine.start()
        #expect(eventually { engine.statistics.parks == 1 })
        let writes = device.writeCount
        #expect(eventually { device.rejoins.withLock { $0.count } >= 3 })
        #expect(device.writeCount == writes, "a resync writes nothing")
        #expect(engine.statistics.parks >= 3, "and parks again")
        let token = engine.play(SoundClip(samples: [Int16](repeating: 7_000, count: 240), channels: 1))
        #expect(eventually { engine.statistics.handoffs.contains { $0.token == token } })
        engine.stop()
    }

    @Test("a played sound comes out of a file-backed ALSA PCM sample-exact, after and before silence")
    func fileBackedExact() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("aout-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let engine = AudioEngine(candidates: ["file:FILE=\(path),FORMAT=raw"], latencyMs: 20, logger: quiet)
        engine.start()
        #expect(engine.isPlaying)
        usleep(60_000)  // some idle periods first
        let clip = rampClip(frames: 2_000)
        let token = engine.play(clip)
        #expect(eventually { engine.statistics.handoffs.contains { $0.token == token } })
        usleep(120_000)  // the clip (42 ms) has gone out, then silence
        engine.stop()
        let out = try samples(atPath: path)
        let first = try #require(out.firstIndex { $0 != 0 })
        #expect(first % 2 == 0 && first >= 2 * 240, "idle periods came first")
        #expect(out[..<first].allSatisfy { $0 == 0 })
        for f in 0..<clip.frameCount {
            #expect(out[first + 2 * f] == clip.samples[f] && out[first + 2 * f + 1] == clip.samples[f])
        }
        #expect(out[(first + 2 * clip.frameCount)...].allSatisfy { $0 == 0 }, "silence after the clip")
        #expect(out.count > first + 2 * clip.frameCount + 2 * 240)
        #expect(engine.statistics.parks == 0, "a file is the stream's time line: written every period")
    }

    @Test("two sounds overlapping are mixed (saturating sum) in the same output")
    func fileBackedMix() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("amix-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let engine = AudioEngine(candidates: ["file:FILE=\(path),FORMAT=raw"], latencyMs: 20, logger: quiet)
        let a = SoundClip(samples: [Int16](repeating: 20_000, count: 4_800), channels: 1)
        let b = SoundClip(samples: [Int16](repeating: 1_000, count: 4_800), channels: 1)
        engine.play(a)
        engine.play(b)  // queued together before start: both begin in the first period
        engine.start()
        #expect(eventually { engine.statistics.handoffs.count == 2 })
        engine.play(a)
        usleep(200_000)
        engine.stop()
        let out = try samples(atPath: path)
        let first = try #require(out.firstIndex { $0 != 0 })
        #expect(out[first..<(first + 2 * 4_800)].allSatisfy { $0 == 21_000 || $0 == 32_767 })
        #expect(out.contains(32_767), "the third sound overlapping the first two saturates, not wraps")
        #expect(!out.contains { $0 < 0 })
    }

    @Test("no device: one warning naming what was tried, sounds dropped, the game goes on; a device that appears is used")
    func noDeviceThenBack() {
        let logs = LogLines()
        let device = CapturePCM()
        let opener = ScriptedOpener([nil, nil, device])
        let engine = AudioEngine(candidates: ["plughw:CARD=Gone,DEV=0", "default"], latencyMs: 20, opener: opener, logger: logs.logger, retryDelaysMs: [300, 20])
        engine.play(rampClip(frames: 100))  // queued before start: the first pass finds no device
        engine.start()
        #expect(!engine.isPlaying)
        #expect(logs.all.contains { $0.contains("no sound device") && $0.contains("plughw:CARD=Gone,DEV=0, default") })
        #expect(eventually { engine.statistics.droppedWhileSilent == 1 })
        #expect(eventually { engine.isPlaying })
        #expect(logs.all.contains { $0.contains("sound device back") })
        let token = engine.play(rampClip(frames: 100))
        #expect(eventually { engine.statistics.handoffs.contains { $0.token == token } })
        engine.stop()
        #expect(opener.opened.withLock { $0 } == ["plughw:CARD=Gone,DEV=0", "default", "plughw:CARD=Gone,DEV=0"])
    }

    @Test("a device that disappears mid-stream is logged once and reopened; the first choice wins again")
    func deviceLost() {
        let logs = LogLines()
        let flaky = CapturePCM(name: "usb", failAfter: 10)
        let replacement = CapturePCM(name: "usb")
        let engine = AudioEngine(candidates: ["usb"], latencyMs: 20, opener: ScriptedOpener([flaky, nil, replacement]), logger: logs.logger, retryDelaysMs: [10])
        engine.start()
        #expect(eventually { engine.statistics.deviceFailures == 1 })
        #expect(eventually { engine.isPlaying && engine.statistics.periodsWritten > 15 })
        engine.stop()
        #expect(logs.all.filter { $0.contains("sound device lost") }.count == 1)
        #expect(logs.all.contains { $0.contains("sound device back") })
    }

    @Test("a stall (writes finding the hardware past the stream until they catch up) is counted and logged once, with its length")
    func lateWriteReported() {
        let logs = LogLines()
        let device = CapturePCM()
        // Writes 6–8 catch up on one stall of 96 frames (2 ms); write 12 meets another of 24.
        device.lateAt.withLock { $0 = [6: 96, 7: 48, 8: 10, 12: 24] }
        let engine = AudioEngine(candidates: ["capture"], latencyMs: 20, opener: ScriptedOpener([device]), logger: logs.logger)
        engine.start()
        #expect(eventually { engine.statistics.periodsWritten >= 14 })
        engine.stop()
        let s = engine.statistics
        #expect(s.stalls == 2 && s.stalledFrames == 96 + 24)
        #expect(s.xruns == 0, "nothing was recovered: the stream never stopped")
        let warnings = logs.all.filter { $0.contains("sound underrun: the card played silence") }
        #expect(warnings.count == 2)
        #expect(warnings.first?.contains("frames=96 ms=2.0") == true, "\(warnings)")
        #expect(warnings.last?.contains("frames=24 ms=0.5") == true, "\(warnings)")
    }

    @Test("a stall longer than the buffer, which ALSA's wrapped position hides, is seen by the clock and logged once; a clock late by less than a period is not")
    func stallHiddenByTheWrapReported() {
        let logs = LogLines()
        let device = CapturePCM(virtualClock: 5_000_000)
        // Write 6 comes 30 ms late: the queue (20 ms from write 5) ran dry 15 ms (720 frames)
        // before it, while the position reports nothing. Write 12 comes 17 ms late: 2 ms past
        // the queue, less than a period, within what a lagging position could explain.
        device.stallBefore.withLock { $0 = [6: 30_000_000, 12: 17_000_000] }
        let engine = AudioEngine(candidates: ["capture"], latencyMs: 20, opener: ScriptedOpener([device]), logger: logs.logger)
        engine.start()
        #expect(eventually { engine.statistics.periodsWritten >= 14 })
        engine.stop()
        let s = engine.statistics
        #expect(s.stalls == 1 && s.stalledFrames == 720, "\(s)")
        let warnings = logs.all.filter { $0.contains("sound underrun: the card played silence") }
        #expect(warnings.count == 1 && warnings.first?.contains("frames=720 ms=15.0") == true, "\(warnings)")
    }

    @Test("QueueDeadline: dry a queue's length after the write's check; unknown after forget; the clock's figure wins only by a period")
    func queueDeadline() {
        var d = QueueDeadline(rate: 48_000)
        #expect(d.lateFrames(at: 1_000_000_000) == 0, "unknown before the first write")
        d.wrote(at: 1_000_000_000, queuedBefore: 720, frames: 240)   // dry at +20 ms
        #expect(d.dryAt == 1_020_000_000)
        #expect(d.lateFrames(at: 1_019_000_000) == 0)
        #expect(d.lateFrames(at: 1_030_000_000) == 480)
        d.wrote(at: 1_030_000_000, queuedBefore: -5, frames: 240)    // nothing queued: dry 5 ms on
        #expect(d.dryAt == 1_035_000_000)
        d.forget()
        #expect(d.lateFrames(at: 2_000_000_000) == 0, "a park is no stall")
        #expect(QueueDeadline.stalledFrames(positionLate: 0, clockLate: 239, periodFrames: 240) == 0)
        #expect(QueueDeadline.stalledFrames(positionLate: 0, clockLate: 240, periodFrames: 240) == 240)
        #expect(QueueDeadline.stalledFrames(positionLate: 96, clockLate: 200, periodFrames: 240) == 96)
        #expect(QueueDeadline.stalledFrames(positionLate: 96, clockLate: 1_008, periodFrames: 240) == 1_008)
    }

    @Test("stop ends the thread promptly even while waiting to retry")
    func stopWhileRetrying() {
        let engine = AudioEngine(candidates: ["nope"], latencyMs: 20, opener: ScriptedOpener([]), logger: quiet, retryDelaysMs: [60_000])
        engine.start()
        let t0 = Date()
        engine.stop()
        #expect(Date().timeIntervalSince(t0) < 5)
    }

    @Test("the daemon's sound output plays the bank's clip; the parent's mute and volume reach the mixer")
    func engineSoundOutput() {
        let device = CapturePCM()
        let engine = AudioEngine(candidates: ["capture"], latencyMs: 20, opener: ScriptedOpener([device]), logger: quiet)
        let clip = SoundClip(samples: [Int16](repeating: 8_000, count: 480), channels: 1)
        let output = EngineSoundOutput(engine: engine, bank: SoundBank(clips: [.lockIn: clip]), logger: quiet)
        engine.start()
        output.apply(soundEnabled: false, volumePercent: 100)
        output.play(.lockIn)
        output.play(.stop)  // no clip: nothing, no crash
        #expect(eventually { engine.statistics.handoffs.count == 1 })
        usleep(40_000)
        #expect(device.samples.allSatisfy { $0 == 0 }, "muted")
        output.apply(soundEnabled: true, volumePercent: 100)
        output.play(.lockIn)
        #expect(eventually { device.samples.contains(8_000) })
        engine.stop()
    }

    @Test("the bank loads every committed sound; a broken or missing file is one line naming it")
    func bank() throws {
        let full = SoundBank.load(from: [soundsDirectory], logger: quiet)
        #expect(full.problems.isEmpty)
        #expect(Set(full.clips.keys) == Set(SoundID.allCases))
        // 48 kHz, as committed: every sound is read from its file as it plays, none held in memory.
        #expect(full.clips.values.allSatisfy { $0.isReadFromFile })

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bank-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("not a wav".utf8).write(to: dir.appendingPathComponent("stop.wav"))
        let logs = LogLines()
        let mixed = SoundBank.load(from: [dir.path, soundsDirectory], logger: logs.logger)
        #expect(mixed.clips[.stop] == nil)
        #expect(mixed.clips.count == SoundID.allCases.count - 1)
        #expect(mixed.problems == ["\(dir.path)/stop.wav: not a RIFF/WAVE file"])
        #expect(logs.all.count == 1 && logs.all[0].contains("stop.wav: not a RIFF/WAVE file"))

        let empty = SoundBank.load(from: [dir.path], logger: quiet)
        #expect(empty.problems.contains("lock_in.wav: missing (looked in \(dir.path))"))
    }

}
