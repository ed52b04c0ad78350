import Audio
import Foundation
import Testing

/// Clips read from their WAV file as they play (WAVFile.open): the same samples as a decoded
/// clip, nothing of them in the box's memory, and a file that changes under the box can end
/// a sound early but never stop the box.
@Suite("Sounds read from their files (SPEC §6)")
struct SoundFileClipTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "clips-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every output sample of a mixer playing `clip` at unity gain and full volume.
    func rendered(_ clip: SoundClip, outputs: Int, period: Int = 256) -> [Int16] {
        var mixer = Mixer(outputChannels: outputs)
        mixer.play(clip)
        var all: [Int16] = []
        var buffer = [Int16](repeating: 0, count: period * outputs)
        while mixer.activeVoices > 0 {
            buffer.withUnsafeMutableBufferPointer { _ = mixer.render(into: $0) }
            all += buffer
        }
        return all
    }

    @Test("a 48 kHz file plays from the file, sample for sample as the decoded clip, mono and stereo, on 1 or 2 channels")
    func samePlay() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mono = SoundClip(samples: (0..<1_000).map { Int16(truncatingIfNeeded: $0 * 37 - 9_000) }, channels: 1)
        let stereo = SoundClip(samples: (0..<1_202).map { Int16(truncatingIfNeeded: 5_000 - $0 * 11) }, channels: 2)
        for (clip, name) in [(mono, "mono.wav"), (stereo, "stereo.wav")] {
            let path = try write(WAVFile.encode(clip), name)
            let opened = try WAVFile.open(path)
            #expect(opened.isReadFromFile, "\(name) should be read as it plays")
            #expect(opened == clip)
            #expect(opened.frameCount == clip.frameCount && opened.channels == clip.channels)
            for outputs in [1, 2] {
                #expect(rendered(opened, outputs: outputs) == rendered(clip, outputs: outputs), "\(name) on \(outputs) channels")
            }
        }
    }

    @Test("a 44.1 kHz file is converted into memory once, as decode does")
    func converted() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var bytes = WAVFile.encode(SoundClip(samples: [Int16](repeating: 700, count: 4_410), channels: 1))
        bytes.replaceSubrange(24..<28, with: [0x44, 0xAC, 0x00, 0x00])  // 44,100 Hz
        let clip = try WAVFile.open(try write(bytes, "cd.wav"))
        #expect(!clip.isReadFromFile)
        let decoded = try WAVFile.decode(bytes, file: "cd.wav")
        #expect(clip == decoded)
        #expect(clip.frameCount == 4_800)
    }

    @Test("a file cut short while it plays ends the sound early with silence; the box goes on")
    func cutShort() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clip = SoundClip(samples: [Int16](repeating: 1_200, count: 4_800), channels: 1)
        let path = try write(WAVFile.encode(clip), "cut.wav")
        let opened = try WAVFile.open(path)
        var mixer = Mixer(outputChannels: 1)
        mixer.play(opened)
        var period = [Int16](repeating: 0, count: 480)
        period.withUnsafeMutableBufferPointer { _ = mixer.render(into: $0) }
        #expect(period.allSatisfy { $0 == 1_200 })
        // A parent copies a shorter sound over it (cp truncates, then writes): the header and
        // 1,000 samples remain.
        #expect(truncate(path, off_t(44 + 2 * 1_000)) == 0)
        period.withUnsafeMutableBufferPointer { _ = mixer.render(into: $0) }
        #expect(Array(period[0..<480]) == [Int16](repeating: 1_200, count: 480), "samples 480..<960 are still there")
        period.withUnsafeMutableBufferPointer { _ = mixer.render(into: $0) }
        #expect(Array(period[0..<40]) == [Int16](repeating: 1_200, count: 40) && period[40...].allSatisfy { $0 == 0 })
        #expect(mixer.activeVoices == 0, "the voice ends where the file does")
        #expect(opened.samples.count == 4_800 && opened.samples[1_000...].allSatisfy { $0 == 0 })
    }

    @Test("hostile files: a directory, a FIFO, one larger than any sound, garbage — one line naming the file")
    func hostile() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let directory = folder + "/dir.wav"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fifo = folder + "/fifo.wav"
        #expect(mkfifo(fifo, 0o600) == 0)
        let huge = try write(WAVFile.encode(SoundClip(samples: [1, 2], channels: 1)), "huge.wav")
        #expect(truncate(huge, off_t(WAVFile.maximumBytes + 1)) == 0)
        let garbage = try write(Array("not audio at all".utf8), "garbage.wav")
        for (path, problem) in [
            (directory, "not a regular file"), (fifo, "not a regular file"),
            (huge, "more than"), (garbage, "not a RIFF/WAVE file"), (folder + "/none.wav", "no such file"),
        ] {
            do {
                _ = try WAVFile.open(path)
                Issue.record("\(path) was accepted")
            } catch {
                #expect(error.file == path && error.description.hasPrefix(path + ": ") && error.problem.contains(problem), "\(error)")
                #expect(!error.description.contains("\n"))
            }
        }
    }
}
