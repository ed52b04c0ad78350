// Makes Sounds/<id>.wav for every SoundID: `swift run sound-recipe Sounds` (Sounds/make.sh).
import Audio
import Foundation
import QuestCore

let output = CommandLine.arguments.dropFirst().first ?? "Sounds"
do {
    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
    for id in SoundID.allCases {
        let clip = design(id).render()
        let path = (output as NSString).appendingPathComponent("\(id.rawValue).wav")
        try Data(WAVFile.encode(clip)).write(to: URL(fileURLWithPath: path))
        print(String(format: "%@  %.2f s  peak %.1f dBFS", path, clip.durationSeconds, clip.peakDBFS))
    }
} catch {
    FileHandle.standardError.write(Data("sound-recipe: \(error)\n".utf8))
    exit(1)
}
