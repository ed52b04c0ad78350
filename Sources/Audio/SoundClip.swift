/// A sound ready to mix: 16-bit samples at the engine's rate (48 kHz), interleaved when
/// stereo. Decoded and converted once, when loaded.
public struct SoundClip: Sendable, Equatable {
    public static let sampleRate = 48_000

    public let samples: [Int16]
    public let channels: Int

    public init(samples: [Int16], channels: Int) {
        precondition(channels == 1 || channels == 2, "a clip is mono or stereo")
        self.samples = samples
        self.channels = channels
    }

    public var frameCount: Int { samples.count / channels }
    public var durationSeconds: Double { Double(frameCount) / Double(Self.sampleRate) }

    /// Largest absolute sample, as dBFS (−∞ for silence).
    public var peakDBFS: Double {
        let peak = samples.reduce(0) { max($0, abs(Int($1))) }
        return peak == 0 ? -.infinity : 20 * log10(Double(peak) / 32_767)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
