/// A sound ready to mix: 16-bit samples at the engine's rate (48 kHz), interleaved when
/// stereo. Either in memory (decoded or converted once, when loaded) or read from its WAV
/// file as it plays: a 48 kHz file needs no conversion, and its samples then stay in the
/// kernel's page cache instead of the box's own memory (1.2 MB for the box's sounds).
public struct SoundClip: Sendable, Equatable {
    public static let sampleRate = 48_000

    enum Storage: Sendable {
        case memory([Int16])
        case file(SampleFile)
    }

    let storage: Storage
    public let channels: Int
    /// Samples in all (frames × channels).
    public let sampleCount: Int

    public init(samples: [Int16], channels: Int) {
        precondition(channels == 1 || channels == 2, "a clip is mono or stereo")
        storage = .memory(samples)
        self.channels = channels
        sampleCount = samples.count / channels * channels
    }

    init(file: SampleFile, sampleCount: Int, channels: Int) {
        storage = .file(file)
        self.channels = channels
        self.sampleCount = sampleCount / channels * channels
    }

    public var frameCount: Int { sampleCount / channels }
    public var durationSeconds: Double { Double(frameCount) / Double(Self.sampleRate) }
    /// Whether the samples are read from the file as the clip plays.
    public var isReadFromFile: Bool { if case .file = storage { true } else { false } }

    /// Every sample (read from the file when the clip lives there; a file cut short since it
    /// was opened gives zeros for what is gone).
    public var samples: [Int16] {
        switch storage {
        case .memory(let samples): return samples
        case .file(let file):
            var out = [Int16](repeating: 0, count: sampleCount)
            _ = out.withUnsafeMutableBufferPointer { file.read(from: 0, into: $0) }
            return out
        }
    }

    /// Largest absolute sample, as dBFS (−∞ for silence).
    public var peakDBFS: Double {
        let peak = samples.reduce(0) { max($0, abs(Int($1))) }
        return peak == 0 ? -.infinity : 20 * log10(Double(peak) / 32_767)
    }

    public static func == (a: SoundClip, b: SoundClip) -> Bool {
        a.channels == b.channels && a.sampleCount == b.sampleCount && a.samples == b.samples
    }
}

/// The samples of a WAV file's data chunk, read with pread as they are needed: nothing is
/// mapped, so a file replaced or cut short while the box runs can only end the sound early
/// (a mapped file cut short would stop the box with SIGBUS). The descriptor closes with it.
final class SampleFile: Sendable {
    let descriptor: Int32
    /// Where the data chunk starts in the file, in bytes.
    let dataOffset: Int

    init(descriptor: Int32, dataOffset: Int) {
        self.descriptor = descriptor
        self.dataOffset = dataOffset
    }

    deinit { _ = close(descriptor) }

    /// Reads samples from sample index `start` into `buffer`, little-endian as WAV stores
    /// them; returns how many were read (fewer only when the file was cut short).
    func read(from start: Int, into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        let samples = readFully(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: dataOffset + start * 2) / 2
        #if _endian(big)
        for i in 0..<samples { buffer[i] = Int16(littleEndian: buffer[i]) }
        #endif
        return samples
    }
}

/// Reads from `offset` until `buffer` is full or the file ends (pread: the descriptor's own
/// position is left alone); returns the bytes read.
func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var done = 0
    while done < buffer.count {
        let n = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { break }
        done += n
    }
    return done
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
