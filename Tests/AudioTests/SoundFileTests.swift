import Audio
import Foundation
import QuestCore
import Testing

@Suite("The sound assets (SPEC §6)")
struct SoundFileTests {
    func load(_ id: SoundID) throws -> SoundClip {
        let path = "\(soundsDirectory)/\(id.rawValue).wav"
        let data = try #require(FileManager.default.contents(atPath: path), "missing \(path)")
        return try WAVFile.decode([UInt8](data), file: path)
    }

    @Test("every sound exists, parses, is 48 kHz 16-bit, within its length, peaks ≤ −1 dBFS, starts and ends silent")
    func everyFile() throws {
        for id in SoundID.allCases {
            let path = "\(soundsDirectory)/\(id.rawValue).wav"
            let bytes = try #require(FileManager.default.contents(atPath: path))
            #expect(bytes[24] == 0x80 && bytes[25] == 0xBB, "\(id.rawValue) is not 48 kHz")  // 48000 little-endian
            let clip = try load(id)
            let limit = id.rawValue.hasPrefix("reveal_") ? 2.0 : 1.5
            #expect(clip.durationSeconds > 0.03 && clip.durationSeconds <= limit, "\(id.rawValue): \(clip.durationSeconds) s")
            #expect(clip.peakDBFS <= -1, "\(id.rawValue) peaks at \(clip.peakDBFS) dBFS")
            #expect(clip.peakDBFS > -20, "\(id.rawValue) is nearly silent")
            // No click: the ends are silence, reached by a ramp (first 0.5 ms, last 2 ms stay small).
            #expect(clip.samples.first == 0 && clip.samples.last == 0, "\(id.rawValue) does not start and end at 0")
            #expect(clip.samples.prefix(24 * clip.channels).allSatisfy { abs(Int($0)) < 2_000 }, "\(id.rawValue) starts abruptly")
            #expect(clip.samples.suffix(96 * clip.channels).allSatisfy { abs(Int($0)) < 500 }, "\(id.rawValue) ends abruptly")
        }
    }

    @Test("no two sounds are the same (the original app shipped identical placeholders)")
    func distinct() throws {
        let clips = try SoundID.allCases.map { ($0, try load($0)) }
        for i in clips.indices {
            for j in clips.indices where j > i {
                #expect(clips[i].1 != clips[j].1, "\(clips[i].0.rawValue) and \(clips[j].0.rawValue) are identical")
                #expect(clips[i].1.frameCount != clips[j].1.frameCount || clips[i].1.samples.prefix(4_800) != clips[j].1.samples.prefix(4_800))
            }
        }
    }

    @Test("the reveals differ in character: spot on is the loudest and brightest, way off the softest")
    func revealCharacter() throws {
        let spotOn = try load(.revealSpotOn), wayOff = try load(.revealWayOff)
        #expect(spotOn.peakDBFS > wayOff.peakDBFS + 3)
        // Brightness: zero crossings per second track the dominant pitch.
        func crossingsPerSecond(_ c: SoundClip) -> Double {
            var n = 0
            for i in 1..<c.samples.count where (c.samples[i - 1] < 0) != (c.samples[i] < 0) { n += 1 }
            return Double(n) / c.durationSeconds
        }
        #expect(crossingsPerSecond(spotOn) > 2 * crossingsPerSecond(wayOff))
    }

    @Test("the recipe reproduces the committed files byte for byte")
    func recipeReproduces() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("recipe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let recipe = Process()
        recipe.executableURL = URL(fileURLWithPath: try #require(productPath("sound-recipe") ?? productPath("SoundRecipe")))
        recipe.arguments = [out.path]
        recipe.standardOutput = FileHandle.nullDevice
        try recipe.run()
        recipe.waitUntilExit()
        #expect(recipe.terminationStatus == 0)
        for id in SoundID.allCases {
            let made = FileManager.default.contents(atPath: out.appendingPathComponent("\(id.rawValue).wav").path)
            let committed = FileManager.default.contents(atPath: "\(soundsDirectory)/\(id.rawValue).wav")
            #expect(made != nil && made == committed, "\(id.rawValue).wav differs from what Sounds/make.sh makes")
        }
    }
}
