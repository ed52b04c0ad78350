import Audio
import BoxRuntime
import Foundation
import QuestCore
import Testing
import TestSupport
@testable import Speech

/// #35: eSpeak NG through libespeak-ng, as the box renders its phrases: real speech at the
/// mixer's rate, the same samples for the same words, and hostile names that never crash it.
@Suite("#35: the voice's renderer (eSpeak NG)", .serialized)
struct EspeakSpeechTests {
    /// Frames of 10 ms louder than −40 dBFS: speech has many, silence none.
    static func voicedFrames(_ clip: SoundClip) -> Int {
        let samples = clip.samples, frame = SoundClip.sampleRate / 100
        return stride(from: 0, to: samples.count - frame, by: frame).filter { start in
            let energy = samples[start..<start + frame].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame)
            return energy.squareRoot() > 32_767 * 0.01
        }.count
    }

    @Test("a phrase becomes speech: 48 kHz mono, seconds long, loud enough, voiced for much of it; the same words give the same samples")
    func speaks() throws {
        let speech = try EspeakSpeech()
        #expect(speech.engineRate == 22_050)
        let clip = try speech.render("Tidy Desk. Your guess: two minutes thirty.")
        #expect(clip.channels == 1)
        #expect((1.5...6).contains(clip.durationSeconds), "\(clip.durationSeconds) s")
        #expect(clip.peakDBFS > -12, "peak \(clip.peakDBFS) dBFS")
        #expect(Self.voicedFrames(clip) > 80, "\(Self.voicedFrames(clip)) voiced 10 ms frames")
        let again = try speech.render("Tidy Desk. Your guess: two minutes thirty.")
        #expect(abs(again.durationSeconds - clip.durationSeconds) < 0.05, "the same words, the same length: \(again.durationSeconds) s vs \(clip.durationSeconds) s")
        let other = try speech.render("Go!")
        #expect(other.durationSeconds < clip.durationSeconds / 2)
    }

    @Test("a slower rate says the same words over more time")
    func rate() throws {
        let text = "Close! It took three minutes ten. Your guess was forty seconds short."
        let normal = try EspeakSpeech(voice: .init(name: "en-us", rate: 150)).render(text)
        let slow = try EspeakSpeech(voice: .init(name: "en-us", rate: 100)).render(text)
        #expect(slow.durationSeconds > normal.durationSeconds * 1.25, "\(slow.durationSeconds) s vs \(normal.durationSeconds) s")
    }

    @Test("task names in other scripts, emoji, 80 characters and control characters never crash it", arguments: [
        "Zimmer aufräumen", "打扫房间", "Уборка комнаты", "ترتيب الغرفة", "🧹🦷✨", "🧹 Tidy Desk",
        String(repeating: "Brush teeth and ", count: 5), "Tidy\u{07}\u{1B}[31mDesk\u{0}", String(repeating: "x", count: 5_000), "", "<speak>1</speak> [[h@'loU]]",
    ])
    func hostile(_ name: String) throws {
        let clip = try EspeakSpeech().render(name)
        #expect(clip.durationSeconds < 60)
        #expect(SpeakableText.cleaned(name).unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) })
    }

    /// The locales Raspberry Pi OS's first-boot wizard sets (its countries' main languages).
    static let firstBootLocales = [
        "en_GB.UTF-8", "en_US.UTF-8", "en_AU.UTF-8", "en_CA.UTF-8", "en_IE.UTF-8", "en_NZ.UTF-8", "en_ZA.UTF-8", "en_IN.UTF-8",
        "de_DE.UTF-8", "de_AT.UTF-8", "de_CH.UTF-8", "fr_FR.UTF-8", "fr_BE.UTF-8", "fr_CA.UTF-8", "es_ES.UTF-8", "es_MX.UTF-8",
        "it_IT.UTF-8", "nl_NL.UTF-8", "pt_PT.UTF-8", "pt_BR.UTF-8", "sv_SE.UTF-8", "da_DK.UTF-8", "nb_NO.UTF-8", "fi_FI.UTF-8",
        "pl_PL.UTF-8", "ja_JP.UTF-8", "zh_CN.UTF-8", "ko_KR.UTF-8", "ru_RU.UTF-8", "C.UTF-8", "POSIX",
    ]

    @Test("#48: every locale Raspberry Pi OS offers at first boot speaks, in a voice eSpeak NG has (no fall-back needed)", arguments: firstBootLocales)
    func localeSpeaks(_ locale: String) throws {
        let speech = try EspeakSpeech(voice: .init(name: VoiceChoice().voiceName(locale: locale)))
        #expect(speech.replaced == nil, "\(locale): asked for a voice eSpeak NG lacks")
        let clip = try speech.render("Close! It took two minutes.")
        #expect(clip.durationSeconds > 0.8 && (clip.samples.map { abs(Int($0)) }.max() ?? 0) > 3_000, "\(locale): \(clip.durationSeconds) s")
    }

    @Test("#48: the voice reads a name as a person would: an emoji is not read, \"#3\" is \"number 3\"")
    func saidAsAPerson() throws {
        // eSpeak NG's samples vary a little from one synthesis to the next in a process (each
        // `voice say` alone gives the same file): lengths are compared, as in `speaks`.
        let speech = try EspeakSpeech()
        let name = try speech.render("🌙 Bedtime Quest.").durationSeconds, plain = try speech.render("Bedtime Quest.").durationSeconds
        let readAloud = try speech.render("crescent moon Bedtime Quest.").durationSeconds
        #expect(abs(name - plain) < 0.05 && readAloud - plain > 0.4, "\(name) s, \(plain) s, with the emoji's name \(readAloud) s")
        let hash = try speech.render("Maths #3.").durationSeconds, number = try speech.render("Maths number 3.").durationSeconds
        #expect(abs(hash - number) < 0.05, "\(hash) s against \(number) s")
    }

    @Test("#48: a chosen voice with a region eSpeak NG lacks (the docs' en-gb, de-de, fr-fr) speaks its language", arguments: [
        ("en-gb+m3", "en+m3"), ("en-gb", "en"), ("de-de", "de"), ("fr-fr+m3", "fr+m3"), ("es-es", "es"), ("en-au+m3", "en+m3"),
    ])
    func regionFallsBack(_ asked: String, _ spoken: String) throws {
        let speech = try EspeakSpeech(voice: .init(name: asked))
        #expect(speech.voice.name == spoken && speech.replaced == asked && speech.identity.contains(" \(spoken) "))
        #expect(try speech.render("Your guess: fifteen seconds.").durationSeconds > 0.8)
    }

    @Test("an unknown voice or a rate out of range is one line naming the setting")
    func refusals() throws {
        // #48: a voice eSpeak NG lacks is never a mute box: it speaks the box's own voice.
        let nowhere = try EspeakSpeech(voice: .init(name: "xx-nowhere"))
        #expect(nowhere.voice.name == "en-us+m3" && nowhere.replaced == "xx-nowhere")
        #expect { _ = try EspeakSpeech(voice: .init(name: "en-us; rm -rf")) } throws: { "\($0)".hasPrefix("voice.language:") }
        #expect { _ = try EspeakSpeech(voice: .init(name: "en-us", rate: 1_000)) } throws: { "\($0)".hasPrefix("voice.rate: 1000") }
    }

    @Test("eSpeak NG's 22,050 Hz to the mixer's 48,000 Hz: the length scales, the ends and a ramp stay")
    func resample() {
        let ramp = (0..<22_050).map { Int16($0 % 1000) }
        let out = Resample.toMixerRate(ramp, from: 22_050)
        #expect(out.count == 48_000)
        #expect(out.first == 0)
        #expect(Resample.toMixerRate([], from: 22_050).isEmpty)
        #expect(Resample.toMixerRate([5, 6], from: 48_000) == [5, 6])
        // Midway between two input samples lies their mean.
        let line = Resample.toMixerRate((0..<100).map { Int16($0 * 100) }, from: 24_000)
        #expect(line[1] == 50 && line[2] == 100)
    }
}

/// `questbox voice say`, run as a parent would.
@Suite("#35: questbox voice say", .serialized)
struct VoiceCommandTests {
    @Test("--to writes a 48 kHz mono WAV of the phrase; a missing eSpeak NG data folder is one line naming it; no sound card is one line; nothing to say is refused")
    func say() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let wav = (dir as NSString).appendingPathComponent("guess.wav")
        let questbox = productPath("questbox")
        let made = try runProcess(questbox, ["voice", "say", "Time for Morning Quest.", "--to", wav])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("written to \(wav)"))
        let clip = try WAVFile.open(wav)
        #expect(clip.channels == 1 && clip.durationSeconds > 0.8 && EspeakSpeechTests.voicedFrames(clip) > 40)

        var environment = ProcessInfo.processInfo.environment
        environment["QUESTBOX_ESPEAK_DATA"] = dir + "/no-such-folder"
        let missing = try runProcess(questbox, ["voice", "say", "Go!", "--to", wav + ".2"], environment: environment)
        #expect(missing.status != 0)
        let lines = missing.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("no-such-folder"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: wav + ".2"))

        let nowhere = try runProcess(questbox, ["voice", "say", "Go!", "--sound", "hw:NoSuchCard"])
        #expect(nowhere.status != 0 && nowhere.stderr.contains("no sound device would open (hw:NoSuchCard)"), "\(nowhere.stderr)")

        let empty = try runProcess(questbox, ["voice", "say", "\u{07}", "--to", wav])
        #expect(empty.status != 0 && empty.stderr.contains("nothing to say"), "\(empty.stderr)")
    }

    @Test("voice prepare renders every phrase the stored routines can say into the box's cache, once; the box's voice process reads them")
    func prepare() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let questbox = productPath("questbox")
        let routine = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/example-routine.json").path
        #expect(try runProcess(questbox, ["routine", "import", routine, "--data", dir]).status == 0)
        let first = try runProcess(questbox, ["voice", "prepare", "--data", dir])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("en-us+m3 at 150 words a minute"), "\(first.stdout)")
        let count = first.stdout.split(separator: " ").first.flatMap { Int($0) } ?? 0
        #expect(count > 80 && first.stdout.contains(": \(count) rendered, 0 kept already"), "\(first.stdout)")
        let again = try runProcess(questbox, ["voice", "prepare", "--data", dir])
        #expect(again.stdout.contains(": 0 rendered, \(count) kept already"), "\(again.stdout)")
        // The box's voice process finds the same clips: said, read, not rendered.
        let cache = PhraseCache(directory: dir + "/voice")
        let voice = try VoiceProcess(voice: "en-us+m3", rate: 150, cache: cache, executable: questbox)
        let tooth = cache.clip(for: PhraseCache.Key(voice: voice.identity, text: "Tooth Time."))
        #expect(tooth != nil)
        #expect(try voice.render("Tooth Time.").samples == tooth?.samples)
    }
}
