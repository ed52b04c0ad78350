import Foundation
import GRDB
import QuestCore
import Testing
import TestSupport
@testable import QuestReports
@testable import QuestStore

/// #35: the voice's settings: `voice`, `voice.language`, `voice.rate`, `voice.volume`.
@Suite("#35: the voice's settings")
struct VoiceSettingsTests {
    @Test("defaults (auto, the locale's voice, 150 words a minute, 100 %); each set and read back; refusals are one line and write nothing")
    func setAndRefuse() throws {
        let (db, dir) = try freshDatabase()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try db.settings.current().voice == VoiceChoice())
        #expect(try SettingsCatalog.set("voice", to: "on", in: db.settings).value == "on")
        #expect(try SettingsCatalog.set("voice.language", to: "en-us+f3", in: db.settings).value == "en-us+f3")
        #expect(try SettingsCatalog.set("voice.rate", to: "120", in: db.settings).value == "120")
        #expect(try SettingsCatalog.set("voice.volume", to: "70", in: db.settings).value == "70")
        #expect(try db.settings.current().voice == VoiceChoice(mode: .on, language: "en-us+f3", rate: 120, volumePercent: 70))
        #expect(try SettingsCatalog.set("voice.language", to: "locale", in: db.settings).value == "locale")
        #expect(try db.settings.current().voice.language == nil)
        for (key, bad) in [("voice", "loud"), ("voice.language", "../../etc"), ("voice.language", "en us"), ("voice.language", String(repeating: "a", count: 33)),
                           ("voice.rate", "79"), ("voice.rate", "451"), ("voice.volume", "101"), ("voice.volume", "-1")] {
            #expect {
                try SettingsCatalog.set(key, to: bad, in: db.settings)
            } throws: { "\($0)".hasPrefix(key + ":") && !"\($0)".contains("\n") }
        }
        #expect(try db.settings.current().voice == VoiceChoice(mode: .on, language: nil, rate: 120, volumePercent: 70), "a refused value wrote nothing")
        #expect(SettingsCatalog.choices(for: "voice") == ["auto", "on", "off"])
    }

    @Test("a hand-edited settings row with a voice out of its rules reads as the defaults, never as the bad value")
    func handEdited() throws {
        let (db, dir) = try freshDatabase()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try db.settings.update { $0.voice.rate = 200 }
        for sql in ["UPDATE settings SET voiceLanguage = 'en us; rm'", "UPDATE settings SET voiceRate = 9000", "UPDATE settings SET voiceMode = 'shout'"] {
            try db.pool.write { try $0.execute(sql: "UPDATE settings SET voiceLanguage = NULL, voiceRate = 200, voiceMode = 'auto'") }
            try db.pool.write { try $0.execute(sql: sql) }
            #expect(try db.settings.current().voice == VoiceChoice(), "\(sql)")
        }
    }

    @Test("auto speaks on a board with no screen only; the locale's voice; a voice's name is never a path or a shell word")
    func choice() {
        #expect(VoiceChoice().speaks(boardHasScreen: false) && !VoiceChoice().speaks(boardHasScreen: true))
        #expect(VoiceChoice(mode: .on).speaks(boardHasScreen: true) && !VoiceChoice(mode: .off).speaks(boardHasScreen: false))
        #expect(VoiceChoice.language(forLocale: "en_US.UTF-8") == "en-us")
        #expect(VoiceChoice().voiceName(locale: "en_US.UTF-8") == "en-us+m3", "the box's default variant")
        // #48: the box's words are English: English in the locale's accent where eSpeak NG has
        // one ("en", its British voice), else American; never a name eSpeak NG lacks.
        #expect(VoiceChoice().voiceName(locale: "de_DE") == "en-us+m3")
        #expect(VoiceChoice().voiceName(locale: "en_GB.UTF-8") == "en+m3")
        #expect(VoiceChoice().voiceName(locale: "en_AU.UTF-8") == "en+m3")
        #expect(VoiceChoice().voiceName(locale: "en_CA.UTF-8") == "en-us+m3")
        #expect(VoiceChoice().voiceName(locale: "en_IE.UTF-8@euro") == "en+m3")
        #expect(VoiceChoice(language: "en-gb").voiceName(locale: "de_DE") == "en-gb", "a chosen voice as it is")
        // The locale from a process's environment as POSIX reads it: LC_ALL before LANG, else C.
        #expect(VoiceChoice().voiceName(environment: ["LC_ALL": "en_GB.UTF-8", "LANG": "en_US"]) == "en+m3")
        #expect(VoiceChoice().voiceName(environment: ["LANG": "en_NZ"]) == "en+m3")
        #expect(VoiceChoice().voiceName(environment: [:]) == "en-us+m3")
        #expect(VoiceChoice.language(forLocale: "de_DE.UTF-8") == "en-us")
        #expect(VoiceChoice.language(forLocale: "fr") == "en-us")
        #expect(VoiceChoice.language(forLocale: "C.UTF-8") == "en-us")
        #expect(VoiceChoice.language(forLocale: "") == "en-us")
        #expect(VoiceChoice.language(forLocale: "../x_y") == "en-us")
        for name in ["en-us", "en-GB-x-rp", "en-us+f3", "de"] { #expect(VoiceChoice.isVoiceName(name), "\(name)") }
        // #48: a name eSpeak NG has no file for falls back to its language, then the box's voice.
        #expect(VoiceChoice.fallbacks(for: "en-gb+m3") == ["en-gb+m3", "en+m3", "en-us+m3"])
        #expect(VoiceChoice.fallbacks(for: "pt-pt") == ["pt-pt", "pt", "en-us+m3"])
        #expect(VoiceChoice.fallbacks(for: "en-us+m3") == ["en-us+m3", "en+m3"])
        #expect(VoiceChoice.fallbacks(for: "xx") == ["xx", "en-us+m3"])
        for name in ["", "en us", "../en", "en;ls", "en/us", "ü", String(repeating: "a", count: 33)] { #expect(!VoiceChoice.isVoiceName(name), "\(name)") }
    }
}
