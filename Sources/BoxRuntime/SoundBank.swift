import Audio
import Foundation
import Logging
import QuestCore

/// The box's sounds, one WAV per `SoundID` (named by its raw value), decoded once at start.
/// A missing or broken file is one log line naming it; the box goes on without that sound.
public struct SoundBank: Sendable {
    public let clips: [SoundID: SoundClip]
    public let problems: [String]

    public init(clips: [SoundID: SoundClip], problems: [String] = []) {
        self.clips = clips
        self.problems = problems
    }

    /// Loads every sound from the first directory that has its file.
    public static func load(from directories: [String], logger: Logger) -> SoundBank {
        var clips: [SoundID: SoundClip] = [:]
        var problems: [String] = []
        for id in SoundID.allCases {
            let file = "\(id.rawValue).wav"
            guard let path = directories.map({ ($0 as NSString).appendingPathComponent(file) }).first(where: FileManager.default.fileExists(atPath:)) else {
                problems.append("\(file): missing (looked in \(directories.joined(separator: ", ")))")
                continue
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append("\(path): cannot be read")
                continue
            }
            do {
                clips[id] = try WAVFile.decode([UInt8](data), file: path)
            } catch {
                problems.append(error.description)
            }
        }
        for problem in problems { logger.warning("sound skipped", metadata: ["problem": "\(problem)"]) }
        return SoundBank(clips: clips, problems: problems)
    }

    /// `$QUESTBOX_SOUNDS`, the installed locations, then a source checkout (next to the
    /// build directory, or the working directory).
    public static func searchDirectories(
        environment: [String: String] = ProcessInfo.processInfo.environment, executable: String = CommandLine.arguments.first ?? ""
    ) -> [String] {
        var dirs: [String] = []
        if let custom = environment["QUESTBOX_SOUNDS"], !custom.isEmpty { dirs += custom.split(separator: ":").map(String.init) }
        dirs += ["/etc/questbox/sounds", "/usr/share/questbox/sounds"]
        let exeDir = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        dirs.append(exeDir.deletingLastPathComponent().appendingPathComponent("share/questbox/sounds").path)
        // .build/<triple>/debug/questbox → the checkout's Sounds/
        var up = exeDir
        for _ in 0..<3 {
            up = up.deletingLastPathComponent()
            dirs.append(up.appendingPathComponent("Sounds").path)
        }
        dirs.append(FileManager.default.currentDirectoryPath + "/Sounds")
        var seen = Set<String>()
        return dirs.filter { seen.insert($0).inserted }
    }
}

/// Plays the machine's sound effects through the always-open ALSA engine.
public final class EngineSoundOutput: SoundOutput {
    public let engine: AudioEngine
    let bank: SoundBank
    let logger: Logger

    public init(engine: AudioEngine, bank: SoundBank, logger: Logger) {
        self.engine = engine
        self.bank = bank
        self.logger = logger
    }

    public func play(_ sound: SoundID) {
        guard let clip = bank.clips[sound] else { return }  // already logged at load
        engine.play(clip)
        logger.debug("sound", metadata: ["id": "\(sound.rawValue)"])
    }

    /// The parent's settings: sound on/off and volume.
    public func apply(soundEnabled: Bool, volumePercent: Int) {
        engine.setMuted(!soundEnabled)
        engine.setVolume(percent: volumePercent)
    }
}
