import Audio
import Foundation
import Logging
import QuestCore

/// The box's sounds, one WAV per `SoundID` (named by its raw value), opened once at start
/// (a 48 kHz file is read as it plays, a 44.1 kHz one converted into memory: WAVFile.open).
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
            do {
                clips[id] = try WAVFile.open(path)
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

extension EngineSoundOutput {
    /// The box's sound as `run` and `simulate` start it: the engine on `device` (a PCM name;
    /// by default the board's card, then `default`), the sounds from the usual directories,
    /// the parent's mute and volume. Never fails: without a device the box runs silent and
    /// the log says why.
    public static func start(
        device: String?, card: String, latencyMs: Int, soundEnabled: Bool, volumePercent: Int,
        directories: [String] = SoundBank.searchDirectories(), logger: Logger
    ) -> EngineSoundOutput {
        ALSAPCM.quietLibraryErrors()
        var candidates = device.map { [$0] } ?? [AudioEngine.pcmName(forCard: card), "default"]
        candidates = candidates.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        let engine = AudioEngine(candidates: candidates, latencyMs: latencyMs, logger: logger)
        let output = EngineSoundOutput(engine: engine, bank: SoundBank.load(from: directories, logger: logger), logger: logger)
        output.apply(soundEnabled: soundEnabled, volumePercent: volumePercent)
        engine.start()
        return output
    }
}

/// Several sound outputs at once (the terminal's "♪ name" line and the engine).
public final class SoundOutputs: SoundOutput {
    let outputs: [SoundOutput]
    public init(_ outputs: [SoundOutput]) { self.outputs = outputs }
    public func play(_ sound: SoundID) { for o in outputs { o.play(sound) } }
    public func apply(soundEnabled: Bool, volumePercent: Int) { for o in outputs { o.apply(soundEnabled: soundEnabled, volumePercent: volumePercent) } }
}
