import Audio
import Testing

@Suite("WAV files (SPEC §6)")
struct WAVFileTests {
    @Test("a clip survives encode → decode exactly, mono and stereo")
    func roundTrip() throws {
        let mono = SoundClip(samples: [0, 1, -1, 32_767, -32_768, 1234], channels: 1)
        #expect(try WAVFile.decode(WAVFile.encode(mono), file: "m.wav") == mono)
        let stereo = SoundClip(samples: [0, 0, 5, -5, 100, 200], channels: 2)
        let decoded = try WAVFile.decode(WAVFile.encode(stereo), file: "s.wav")
        #expect(decoded == stereo)
        #expect(decoded.frameCount == 3)
    }

    @Test("44.1 kHz is converted to 48 kHz once, at load")
    func resamples() throws {
        var bytes = WAVFile.encode(SoundClip(samples: [Int16](repeating: 1_000, count: 44_100), channels: 1))
        // Patch the header's rate and byte rate to 44.1 kHz.
        write32(&bytes, at: 24, 44_100)
        write32(&bytes, at: 28, 88_200)
        let clip = try WAVFile.decode(bytes, file: "cd.wav")
        #expect(clip.frameCount == 48_000)
        #expect(clip.samples.allSatisfy { $0 == 1_000 })
    }

    @Test("unusable files are refused with one line naming the file and the problem")
    func refusals() {
        let good = WAVFile.encode(SoundClip(samples: [1, 2, 3, 4], channels: 1))
        var eightBit = good
        eightBit[34] = 8
        var threeChannels = good
        threeChannels[22] = 3
        var float = good
        float[20] = 3
        var odd = good
        write32(&odd, at: 24, 22_050)
        let cases: [([UInt8], String)] = [
            (Array("hello, not audio".utf8), "not a RIFF/WAVE file"),
            (Array(good.prefix(36)), "no audio data"),
            (Array(good.prefix(12)), "no fmt chunk"),
            (eightBit, "8-bit samples, expected 16-bit"),
            (threeChannels, "3 channels, expected 1 or 2"),
            (float, "format tag 3 is not PCM (1)"),
            (odd, "22050 Hz, expected 48000 or 44100"),
        ]
        for (bytes, problem) in cases {
            #expect(throws: WAVError(file: "/x/bad.wav", problem: problem)) { try WAVFile.decode(bytes, file: "/x/bad.wav") }
        }
        #expect(WAVError(file: "/x/bad.wav", problem: "no fmt chunk").description == "/x/bad.wav: no fmt chunk")
    }

    @Test("a data chunk cut short (a writer that died) plays what is there")
    func truncated() throws {
        let bytes = WAVFile.encode(SoundClip(samples: [1, 2, 3, 4, 5, 6], channels: 1))
        let clip = try WAVFile.decode(Array(bytes.dropLast(4)), file: "cut.wav")
        #expect(clip.samples == [1, 2, 3, 4])
    }

    @Test("WAVE_FORMAT_EXTENSIBLE with a PCM sub-format is PCM")
    func extensible() throws {
        let clip = SoundClip(samples: [7, 8, 9], channels: 1)
        let plain = WAVFile.encode(clip)
        // fmt chunk of 40 bytes: tag 0xFFFE, then cbSize, valid bits, mask and the GUID (PCM = 1).
        var fmt: [UInt8] = Array(plain[20..<36])
        fmt[0] = 0xFE; fmt[1] = 0xFF
        fmt += [22, 0, 16, 0, 4, 0, 0, 0] + [1, 0, 0, 0, 0, 0, 16, 0, 128, 0, 0, 170, 0, 56, 155, 113]
        var bytes = Array(plain[0..<12]) + Array("fmt ".utf8) + [40, 0, 0, 0] + fmt + Array(plain[36...])
        write32(&bytes, at: 4, bytes.count - 8)
        #expect(try WAVFile.decode(bytes, file: "ext.wav") == clip)
    }

    func write32(_ b: inout [UInt8], at i: Int, _ v: Int) {
        for k in 0..<4 { b[i + k] = UInt8((v >> (8 * k)) & 0xFF) }
    }
}
