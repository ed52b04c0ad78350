import QuestCore

/// Where the box's sounds go: the ALSA engine (`EngineSoundOutput`), or a terminal's note
/// of them in `simulate`.
public protocol SoundOutput: AnyObject {
    func play(_ sound: SoundID)
    /// The parent's settings: sound on/off and volume (applied while running).
    func apply(soundEnabled: Bool, volumePercent: Int)
}
