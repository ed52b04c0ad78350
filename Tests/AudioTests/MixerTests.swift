import Audio
import AudioTestSupport
import Testing

@Suite("The mixer")
struct MixerTests {
    @Test("idle output is silence")
    func idle() {
        var m = Mixer(outputChannels: 2)
        let (out, started) = render(&m, frames: 240)
        #expect(out.allSatisfy { $0 == 0 })
        #expect(started.isEmpty)
    }

    @Test("one voice at unity comes out sample-exact on both channels, then the voice ends")
    func exact() {
        var m = Mixer(outputChannels: 2)
        let clip = rampClip(frames: 300)
        m.play(clip, token: 7)
        let (first, started) = render(&m, frames: 240)
        #expect(started == [7])
        for f in 0..<240 {
            #expect(first[2 * f] == clip.samples[f] && first[2 * f + 1] == clip.samples[f])
        }
        let (second, again) = render(&m, frames: 240)
        #expect(again.isEmpty)
        for f in 0..<60 { #expect(second[2 * f] == clip.samples[240 + f]) }
        #expect(second[120...].allSatisfy { $0 == 0 })
        #expect(m.activeVoices == 0)
    }

    @Test("voices sum, and the sum saturates instead of wrapping")
    func sumsAndSaturates() {
        var m = Mixer(outputChannels: 1)
        m.play(SoundClip(samples: [100, -200, 30_000, -30_000], channels: 1))
        m.play(SoundClip(samples: [50, -50, 10_000, -10_000], channels: 1))
        let (out, _) = render(&m, frames: 4)
        #expect(out == [150, -250, 32_767, -32_768])
    }

    @Test("stereo clips keep their channels; a mono device gets their average")
    func channels() {
        var stereo = Mixer(outputChannels: 2)
        stereo.play(SoundClip(samples: [10, -10, 20, -20], channels: 2))
        #expect(render(&stereo, frames: 2).0 == [10, -10, 20, -20])
        var mono = Mixer(outputChannels: 1)
        mono.play(SoundClip(samples: [10, 30, 20, -20], channels: 2))
        #expect(render(&mono, frames: 2).0 == [20, 0])
    }

    @Test("a device with more than two channels (a hw: card wanting 6) plays stereo on the first two, mono on all; no crash")
    func manyChannels() {
        var six = Mixer(outputChannels: 6)
        six.play(SoundClip(samples: [10, -10, 20, -20], channels: 2))
        #expect(render(&six, frames: 2).0 == [10, -10, 0, 0, 0, 0, 20, -20, 0, 0, 0, 0])
        six.play(SoundClip(samples: [7, 8], channels: 1))
        #expect(render(&six, frames: 2).0 == [7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8])
        var none = Mixer(outputChannels: 0)  // nonsense from a driver: treated as mono
        #expect(none.outputChannels == 1)
        none.play(SoundClip(samples: [5], channels: 1))
        #expect(render(&none, frames: 1).0 == [5])
    }

    @Test("mute and volume 0 are silence; volume scales; per-voice gain applies")
    func volume() {
        let clip = SoundClip(samples: [Int16](repeating: 10_000, count: 8), channels: 1)
        var m = Mixer(outputChannels: 1)
        m.setMuted(true)
        m.play(clip)
        #expect(render(&m, frames: 8).0.allSatisfy { $0 == 0 })
        m.setMuted(false)
        m.setVolume(percent: 0)
        m.play(clip)
        #expect(render(&m, frames: 8).0.allSatisfy { $0 == 0 })
        m.setVolume(percent: 50)  // −25 dB
        m.play(clip)
        let half = render(&m, frames: 8).0[0]
        #expect(half > 550 && half < 570)
        m.setVolume(percent: 100)
        m.play(clip, gain: 0.5)
        #expect(render(&m, frames: 8).0[0] == 5_000)
    }
}
