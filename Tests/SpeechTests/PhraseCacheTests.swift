import Audio
import Foundation
@testable import Speech
import Testing

/// #35: the voice's clips kept in the data folder: read back exactly, across a restart;
/// damaged, cut short, foreign or special files read as missing (and go), never as a crash;
/// bounded, the least recently used going first.
@Suite("The voice's phrase cache")
struct PhraseCacheTests {
    func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("phrases-\(UUID().uuidString)").path
    }

    func clip(_ frames: Int, _ seed: Int16 = 1) -> SoundClip {
        SoundClip(samples: (0..<frames).map { Int16(truncatingIfNeeded: $0 &* 37 &+ Int(seed)) }, channels: 1)
    }

    let key = PhraseCache.Key(voice: "espeak-ng 1.51 en-us 150", text: "Tooth Time.")

    @Test("a clip kept is read back sample for sample, by another cache on the same folder (a restart)")
    func roundTrip() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let original = clip(4_800)
        try PhraseCache(directory: dir).store(original, for: key)
        let again = PhraseCache(directory: dir)
        #expect(again.clip(for: key)?.samples == original.samples)
        #expect(again.clip(for: PhraseCache.Key(voice: "espeak-ng 1.51 en-us 200", text: "Tooth Time.")) == nil, "another rate is another clip")
        #expect(!again.path(for: key).contains("Tooth"), "no character of the words in the file's name")
    }

    @Test("#47: the cache's folder is the owner's alone (0700) and each clip too (0600), whatever the umask; a folder made wider is narrowed")
    func privateFiles() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func mode(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1 }
        let cache = PhraseCache(directory: dir)
        try cache.store(clip(480), for: key)
        #expect(mode(dir) == 0o700, "voice/ is \(String(mode(dir), radix: 8))")
        #expect(mode(cache.path(for: key)) == 0o600)
        #expect(chmod(dir, 0o755) == 0)
        try cache.store(clip(480, 2), for: PhraseCache.Key(voice: key.voice, text: "Pack Bag."))
        #expect(mode(dir) == 0o700, "a folder made wider stays wide")
    }

    @Test("a damaged clip (a flipped sample, cut short, grown, foreign words, junk) reads as missing and is removed")
    func damaged() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = PhraseCache(directory: dir)
        let path = cache.path(for: key)
        let damages: [(String, ([UInt8]) -> [UInt8])] = [
            ("a flipped sample", { var b = $0; b[b.count - 7] ^= 0x10; return b }),
            ("cut short", { Array($0.dropLast(3)) }),
            ("grown", { $0 + [0, 0] }),
            ("junk", { _ in Array("not a clip at all".utf8) }),
            ("empty", { _ in [] }),
            ("a huge frame count", { var b = $0; let at = 8 + 4 + Array(key.voice.utf8).count + 1 + Array(key.text.utf8).count + 4; b[at + 3] = 0x7F; return b }),
        ]
        for (name, damage) in damages {
            try cache.store(clip(1_000), for: key)
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            try Data(damage(bytes)).write(to: URL(fileURLWithPath: path))
            #expect(cache.clip(for: key) == nil, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(name): removed, to be rendered again")
        }
        // Another phrase's clip under this one's name (a hash collision): not these words.
        let other = PhraseCache.Key(voice: key.voice, text: "Go!")
        try cache.store(clip(100), for: other)
        try FileManager.default.moveItem(atPath: cache.path(for: other), toPath: path)
        #expect(cache.clip(for: key) == nil)
    }

    @Test("what is left to render: each missing piece once, in order; reading, a damaged clip is missing too; the box's cache is voice/ in its data folder")
    func missing() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = PhraseCache(dataDirectory: dir)
        #expect(cache.directory == dir + "/voice")
        try cache.store(clip(100), for: key)
        try cache.store(clip(100), for: PhraseCache.Key(voice: key.voice, text: "Go!"))
        let pieces = ["Tooth Time.", "Go!", "Tidy Desk.", "Close!", "Tidy Desk."]
        #expect(cache.missing(pieces, voice: key.voice) == ["Close!", "Tidy Desk."])
        #expect(cache.missing(pieces, voice: "another voice") == ["Close!", "Go!", "Tidy Desk.", "Tooth Time."])
        try Data("junk".utf8).write(to: URL(fileURLWithPath: cache.path(for: key)))
        #expect(cache.missing(pieces, voice: key.voice) == ["Close!", "Tidy Desk."], "not read: a file is there")
        #expect(cache.missing(pieces, voice: key.voice, reading: true) == ["Close!", "Tidy Desk.", "Tooth Time."])
    }

    @Test("a FIFO or a folder where a clip should be is missing, not a hang or a crash")
    func specialFiles() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = PhraseCache(directory: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        #expect(mkfifo(cache.path(for: key), 0o600) == 0)
        #expect(cache.clip(for: key) == nil)
        #expect(!cache.has(key))
        let folderKey = PhraseCache.Key(voice: key.voice, text: "Go!")
        try FileManager.default.createDirectory(atPath: cache.path(for: folderKey), withIntermediateDirectories: true)
        #expect(cache.clip(for: folderKey) == nil)
    }

    @Test("bounded: past its size the least recently used clips go, a clip just read stays")
    func bounded() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let one = PhraseCache.fileBytes(identity: Array("v|phrase 0".utf8).count, frames: 10_000)
        let cache = PhraseCache(directory: dir, maximumBytes: 3 * one + 100)
        let keys = (0..<3).map { PhraseCache.Key(voice: "v", text: "phrase \($0)") }
        for (i, k) in keys.enumerated() {
            try cache.store(clip(10_000, Int16(i)), for: k)
            usleep(20_000)  // distinct modification times
        }
        #expect(cache.usage.files == 3)
        #expect(cache.clip(for: keys[0]) != nil)  // used now: the newest
        usleep(20_000)
        try cache.store(clip(10_000, 9), for: PhraseCache.Key(voice: "v", text: "phrase 3"))
        #expect(cache.usage.files == 3 && cache.usage.bytes <= cache.maximumBytes)
        #expect(cache.has(keys[0]), "read just now: kept")
        #expect(!cache.has(keys[1]), "the least recently used went")
    }

    @Test("storing over a clip: kept unless told to replace it")
    func replacing() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = PhraseCache(directory: dir)
        try cache.store(clip(100, 1), for: key)
        try cache.store(clip(100, 2), for: key, replacing: false)
        #expect(cache.clip(for: key)?.samples == clip(100, 1).samples)
        try cache.store(clip(100, 3), for: key)
        #expect(cache.clip(for: key)?.samples == clip(100, 3).samples)
    }
}
