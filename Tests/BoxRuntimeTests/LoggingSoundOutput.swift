import BoxRuntime
import Logging
import QuestCore

/// The sounds the daemon played, kept for a test to read (and logged).
public final class LoggingSoundOutput: SoundOutput {
    let logger: Logger
    public private(set) var played: [SoundID] = []
    public private(set) var muted = false
    public init(logger: Logger) { self.logger = logger }
    public func apply(soundEnabled: Bool, volumePercent: Int) { muted = !soundEnabled }
    public func play(_ sound: SoundID) {
        guard !muted else { return }
        played.append(sound)
        logger.info("sound", metadata: ["id": "\(sound.rawValue)"])
    }
}
