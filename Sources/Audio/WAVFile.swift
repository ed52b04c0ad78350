import InputFiles

/// Why a WAV file cannot be used; the description is one line naming the file.
public struct WAVError: Error, CustomStringConvertible, Equatable {
    public let file: String
    public let problem: String
    public var description: String { "\(file): \(problem)" }
    public init(file: String, problem: String) {
        self.file = file
        self.problem = problem
    }
}

/// RIFF/WAVE with 16-bit PCM, mono or stereo, 44.1 or 48 kHz: what `Sounds/` holds and what
/// a parent might drop in. Anything else is refused with the reason.
public enum WAVFile {
    /// The largest sound file the box reads: ten minutes of 48 kHz stereo. Anything larger is
    /// not a sound effect.
    public static let maximumBytes = 10 * 60 * 48_000 * 4

    /// Where a WAV file's samples are and what they are, from its first bytes.
    struct Layout {
        var channels: Int
        var rate: Int
        /// The data chunk's bytes in the file.
        var data: Range<Int>
    }

    /// The chunks in `head` (the file's first bytes; the whole file when `fileSize` is its
    /// count): a data chunk may run past `head`, never past `fileSize`.
    static func layout(_ head: [UInt8], fileSize: Int, file: String) throws(WAVError) -> Layout {
        func fail(_ problem: String) -> WAVError { WAVError(file: file, problem: problem) }
        guard head.count >= 12, ascii(head, 0) == "RIFF", ascii(head, 8) == "WAVE" else {
            throw fail("not a RIFF/WAVE file")
        }
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        var data: Range<Int>?
        var offset = 12
        while offset + 8 <= head.count {
            let id = ascii(head, offset)
            let size = Int(le32(head, offset + 4))
            let body = offset + 8
            guard body + size <= fileSize || id == "data" else { throw fail("chunk '\(id)' runs past the end of the file") }
            switch id {
            case "fmt ":
                guard size >= 16 else { throw fail("fmt chunk is \(size) bytes, expected at least 16") }
                guard body + size <= head.count else { throw fail("fmt chunk is not among the file's first \(head.count) bytes") }
                var tag = Int(le16(head, body))
                // WAVE_FORMAT_EXTENSIBLE carries the real format in its sub-format GUID.
                if tag == 0xFFFE, size >= 26 { tag = Int(le16(head, body + 24)) }
                format = (tag, Int(le16(head, body + 2)), Int(le32(head, body + 4)), Int(le16(head, body + 14)))
            case "data":
                // A writer that died mid-file leaves a size past the end: use what is there.
                data = body..<min(body + size, fileSize)
            default:
                break
            }
            offset = body + size + (size & 1)
        }
        guard let format else { throw fail("no fmt chunk") }
        guard format.tag == 1 else { throw fail("format tag \(format.tag) is not PCM (1)") }
        guard format.bits == 16 else { throw fail("\(format.bits)-bit samples, expected 16-bit") }
        guard format.channels == 1 || format.channels == 2 else { throw fail("\(format.channels) channels, expected 1 or 2") }
        guard format.rate == 48_000 || format.rate == 44_100 else { throw fail("\(format.rate) Hz, expected 48000 or 44100") }
        guard let data, data.count >= 2 * format.channels else { throw fail("no audio data") }
        return Layout(channels: format.channels, rate: format.rate, data: data)
    }

    public static func decode(_ bytes: [UInt8], file: String) throws(WAVError) -> SoundClip {
        let layout = try layout(bytes, fileSize: bytes.count, file: file)
        let count = layout.data.count / 2 / layout.channels * layout.channels
        var samples = [Int16](repeating: 0, count: count)
        for i in 0..<count { samples[i] = Int16(bitPattern: le16(bytes, layout.data.lowerBound + 2 * i)) }
        if layout.rate != SoundClip.sampleRate {
            samples = resample(samples, channels: layout.channels, from: layout.rate, to: SoundClip.sampleRate)
        }
        return SoundClip(samples: samples, channels: layout.channels)
    }

    /// The sound in the file at `path`, treated as hostile input (a regular file, at most
    /// `maximumBytes`). A 48 kHz file is read as it plays (its samples stay in the page
    /// cache, not in the box's memory); a 44.1 kHz one is converted into memory once.
    public static func open(_ path: String) throws(WAVError) -> SoundClip {
        let file: InputFile.Regular
        do {
            file = try InputFile.openRegular(path, maximumBytes: maximumBytes)
        } catch {
            throw WAVError(file: path, problem: error.problem)
        }
        var head = [UInt8](repeating: 0, count: min(file.size, 64 * 1024))
        let got = head.withUnsafeMutableBytes { readFully(file.descriptor, into: $0, at: 0) }
        let layout = try layout(Array(head.prefix(got)), fileSize: file.size, file: path)
        // The clip keeps a descriptor of its own (close-on-exec): the InputFile closes this one.
        let descriptor = layout.rate == SoundClip.sampleRate ? fcntl(file.descriptor, F_DUPFD_CLOEXEC, 0) : -1
        guard descriptor >= 0 else {
            // 44.1 kHz (or no descriptor to spare): the whole file, converted into memory once.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(file.size)
            do {
                try InputFile.copy(file) { bytes.append(contentsOf: $0) }
            } catch {
                throw WAVError(file: path, problem: error.problem)
            }
            return try decode(bytes, file: path)
        }
        // Into the page cache now, so the first play reads memory, not the SD card.
        _ = posix_fadvise(descriptor, off_t(layout.data.lowerBound), off_t(layout.data.count), POSIX_FADV_WILLNEED)
        return SoundClip(
            file: SampleFile(descriptor: descriptor, dataOffset: layout.data.lowerBound), sampleCount: layout.data.count / 2,
            channels: layout.channels)
    }

    /// 16-bit PCM WAV bytes of a clip at 48 kHz.
    public static func encode(_ clip: SoundClip) -> [UInt8] {
        let samples = clip.samples
        let dataBytes = samples.count * 2
        var out: [UInt8] = []
        out.reserveCapacity(44 + dataBytes)
        func put(_ s: String) { out += Array(s.utf8) }
        func put16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        func put32(_ v: Int) { put16(v & 0xFFFF); put16((v >> 16) & 0xFFFF) }
        put("RIFF"); put32(36 + dataBytes); put("WAVE")
        put("fmt "); put32(16); put16(1); put16(clip.channels); put32(SoundClip.sampleRate)
        put32(SoundClip.sampleRate * clip.channels * 2); put16(clip.channels * 2); put16(16)
        put("data"); put32(dataBytes)
        for s in samples { put16(Int(UInt16(bitPattern: s))) }
        return out
    }

    /// Linear interpolation, once at load: fine for short effect sounds.
    static func resample(_ input: [Int16], channels: Int, from: Int, to: Int) -> [Int16] {
        let inFrames = input.count / channels
        let outFrames = Int((Int64(inFrames) * Int64(to)) / Int64(from))
        var out = [Int16](repeating: 0, count: outFrames * channels)
        for f in 0..<outFrames {
            let position = Double(f) * Double(from) / Double(to)
            let i = Int(position)
            let t = position - Double(i)
            for c in 0..<channels {
                let a = Double(input[min(i, inFrames - 1) * channels + c])
                let b = Double(input[min(i + 1, inFrames - 1) * channels + c])
                out[f * channels + c] = Int16((a + (b - a) * t).rounded())
            }
        }
        return out
    }

    private static func ascii(_ b: [UInt8], _ at: Int) -> String {
        guard at + 4 <= b.count else { return "" }
        return String(decoding: b[at..<at + 4], as: UTF8.self)
    }
    private static func le16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
    private static func le32(_ b: [UInt8], _ at: Int) -> UInt32 { UInt32(le16(b, at)) | UInt32(le16(b, at + 2)) << 16 }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
