import QuestCore

/// The core's screens drawn for a small monochrome display (128×64 or 128×32): a line or two
/// of words above, one thing in big type in the middle (the estimate in M:SS, the rating, the
/// XP), and what to press below. GAME-2: the active screen has no clock, countdown or
/// elapsed time; `ActiveScreen` has no field for one, and the renderer adds none.
public enum ScreenRenderer {
    /// What one screen says, before it is placed on a frame of a given size.
    public struct Layout: Equatable, Sendable {
        public var top: [String]
        public var big: String?
        public var bottom: [String]
    }

    public static func render(_ screen: Screen, width: Int = 128, height: Int = 64) -> MonoFrame {
        draw(layout(screen), width: width, height: height)
    }

    public static func layout(_ screen: Screen) -> Layout {
        switch screen {
        case .idle(let s):
            let selected = s.selectedIndex.flatMap { s.quests.indices.contains($0) ? s.quests[$0] : nil } ?? s.quests.first
            var bottom: [String] = []
            if let notice = s.notice {
                bottom.append(notice)
            } else if s.reflection != nil {
                bottom.append("Your week waits!")
            } else if let selected, selected.playedToday {
                bottom.append("Done today ✓")
            }
            if selected != nil { bottom.append(s.quests.count > 1 ? "UP/DN pick · LOCK go" : "Press LOCK to start") }
            return Layout(
                top: ["Lvl \(s.level) · \(s.streakText)"],
                big: selected?.name ?? "No quests today",
                bottom: bottom)
        case .estimating(let s):
            return Layout(
                top: [s.questName, "Task \(s.taskNumber)/\(s.taskCount): \(s.taskName)"],
                big: DurationText.clock(seconds: s.estimateSeconds),
                bottom: [s.hint ?? "How long? Set a guess", "UP/DN set · LOCK go"])
        case .active(let s):
            return Layout(
                top: [s.questName, "Task \(s.taskNumber)/\(s.taskCount): \(s.taskName)"],
                big: "Go!",
                bottom: ["Your guess: \(DurationText.clock(seconds: s.estimateSeconds))", "Press STOP when done"])
        case .reveal(let s):
            var xp = "+\(s.xpGained) XP"
            if s.isPersonalBest { xp += " · New best!" }
            return Layout(
                top: [s.taskName],
                big: s.isCalibration ? "Noted" : bigWords(s.rating),
                bottom: ["Guess \(clock(s.estimatedSeconds)), took \(clock(s.actualSeconds))", xp])
        case .summary(let s):
            var bottom = [s.streakMilestone.map { "\($0)-day streak!" } ?? s.streakText]
            if let best = s.personalBests.first {
                bottom.append(s.personalBests.count == 1 ? "New best: \(best)" : "\(s.personalBests.count) new bests!")
            } else {
                bottom.append("Level \(s.level) · \(Int((s.levelProgress * 100).rounded(.down)))% of it")
            }
            return Layout(
                top: ["\(s.questName) done!"],
                big: s.leveledUp ? "Level \(s.level)!" : "+\(s.sessionXP) XP",
                bottom: bottom)
        case .reflection(let r):
            return Layout(
                top: ["Your week", "\(CountText.counted(r.questsCompleted, "quest")) · \(r.streakContextString)"],
                big: "\(Int(r.averageAccuracy.rounded()))%",
                bottom: [r.bestEstimateTaskName.map { "Best: \($0)" } ?? "accuracy", "Any button: go on"])
        }
    }

    static func bigWords(_ rating: AccuracyRating) -> String {
        switch rating {
        case .spotOn: "Spot on!"
        case .close: "Close!"
        case .off: "Off"
        case .wayOff: "Way off"
        }
    }

    /// M:SS of a measured duration, rounded to the second (one format on every screen).
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        return DurationText.clock(seconds: Int(min(max(seconds, 0), 359_999).rounded()))
    }

    /// Places a layout: on 64 rows, two lines of words, the big item at the largest size
    /// (3×, 2×, then 1× cut with …) that fits, two lines below; on 32 rows, one line, the
    /// big item at 2× at most, the last line.
    public static func draw(_ layout: Layout, width: Int, height: Int) -> MonoFrame {
        var frame = MonoFrame(width: width, height: height)
        let line = PixelFont.lineHeight
        let compact = frame.height < 48
        let top = compact ? Array(layout.top.prefix(1)) : Array(layout.top.prefix(2))
        let bottom = compact ? Array(layout.bottom.suffix(1)) : Array(layout.bottom.prefix(2))
        for (i, text) in top.enumerated() {
            frame.draw(TextLayout.fitted(text, width: frame.width), x: 0, y: i * line)
        }
        for (i, text) in bottom.enumerated() {
            frame.draw(TextLayout.fitted(text, width: frame.width), x: 0, y: frame.height - (bottom.count - i) * line + 1)
        }
        if let big = layout.big {
            let above = top.count * line, below = frame.height - bottom.count * line
            let room = below - above
            let scales = (compact ? [2, 1] : [3, 2, 1]).filter { PixelFont.glyphHeight * $0 <= room }
            let scale = scales.first { TextLayout.width(of: big, scale: $0) <= frame.width } ?? 1
            let text = TextLayout.fitted(big, width: frame.width, scale: scale)
            let x = (frame.width - TextLayout.width(of: text, scale: scale)) / 2
            let y = above + (room - PixelFont.glyphHeight * scale) / 2
            frame.draw(text, x: x, y: y, scale: scale)
        }
        return frame
    }
}
