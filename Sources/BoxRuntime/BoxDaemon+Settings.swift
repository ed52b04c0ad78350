import BoxProtocol
import CEventLoop
import Foundation
import GPIO
import Logging
import QuestCore
import QuestStore
import SystemClock

/// What the store says, applied to the running box: the parent's changes (routines,
/// settings, the profile), read again when they happen, and the voice's settings.
extension BoxDaemon {
    /// #35: the voice's settings, and whether the box speaks: the parent's `voice` for this
    /// board (`auto` speaks where there is no screen) with a voice that started.
    func applyVoice(_ choice: VoiceChoice) {
        let speaks = speech != nil && choice.speaks(boardHasScreen: board.profile.display != nil)
        speech?.apply(choice, speaking: speaks)
        guard speaks != state.voice.speaks else { return }
        state.voice.speaks = speaks
        if !speaks { speech?.cut() }
        logger.info("voice", metadata: ["speaks": "\(speaks)", "setting": "\(choice.mode.rawValue)"])
    }

    /// #35: the phrases this world can say, rendered into the cache off the loop.
    func prepareVoice() {
        guard state.voice.speaks else { return }
        speech?.prepare(VoicePhrases.knownAhead(world: state.world, rules: state.rules))
    }

    /// Re-reads routines, settings and the profile. Sound settings apply at once; the game's
    /// world only while idle, so a change never disturbs a quest (it waits for the next).
    /// Returns when the world applies: "now" or "after-quest".
    @discardableResult
    func reload(reason: String) -> String {
        let settings: StoredSettings
        do {
            settings = try db.settings.current()
        } catch {
            logger.error("re-reading settings failed", metadata: ["error": "\(error)"])
            return "now"
        }
        sound.apply(soundEnabled: settings.soundEnabled, volumePercent: settings.volumePercent)
        applyVoice(settings.voice)
        switch state.phase {
        case .idle, .summary, .reflection, .intro:
            break
        case .estimating, .active, .revealing:
            if !memory.pendingReload { logger.info("store changed during a quest; applies after it", metadata: ["reason": "\(reason)"]) }
            memory.pendingReload = true
            return "after-quest"
        }
        memory.pendingReload = false
        guard let world = follower.reread() else { return "now" }
        step(.worldUpdated(world, atNanos: clock.monotonicNanos()))
        day.arm(for: state.world)  // reminder times may have changed
        prepareVoice()  // routines' names, or the voice, may have changed
        logger.info("store re-read", metadata: [
            "reason": "\(reason)", "routines": "\(world.routines.count)", "xp": "\(world.profile.totalXP)", "version": "\(follower.reads)",
        ])
        server?.broadcast(.event("box") { $0.box = status() })
        return "now"
    }
}
