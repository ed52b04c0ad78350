import Foundation
import QuestCore
import QuestReports

/// #33: what a teen looks at, drawn on the server as SVG (no script, no inline style; colours
/// from app.css): the days played as a calendar, each task's accuracy over the last 30 days as
/// small pictures side by side, and the patterns as bars (how much longer or shorter than the
/// guess each task usually takes).
enum StatsPictures {

    /// Five weeks, a row each, from the family's first weekday; a played day filled, a day
    /// with a quest left paused outlined, today marked.
    static func calendar(_ days: [StatsReport.PlayDay], weekdayLetters: [String]) -> String? {
        // Nothing played yet: the page says so in words instead.
        guard days.contains(where: { $0.questsCompleted > 0 || $0.paused || $0.joker }) else { return nil }
        let cell = 40.0, gap = 6.0, top = 22.0
        let rows = (days.count + 6) / 7
        let width = 7 * cell + 6 * gap, height = top + Double(rows) * (cell + gap)
        var svg = """
            <svg class="calendar" viewBox="0 0 \(SVGText.number(width)) \(SVGText.number(height))" role="group" aria-label="Days played, last five weeks" xmlns="http://www.w3.org/2000/svg">

            """
        for (i, letter) in weekdayLetters.prefix(7).enumerated() {
            svg += "<text class=\"axis\" x=\"\(SVGText.number(Double(i) * (cell + gap) + cell / 2))\" y=\"14\" text-anchor=\"middle\">\(SVGText.escaped(letter))</text>"
        }
        svg += "\n"
        for (i, day) in days.enumerated() {
            let x = Double(i % 7) * (cell + gap), y = top + Double(i / 7) * (cell + gap)
            let state = day.questsCompleted > 0 ? "played" : (day.joker ? "joker" : (day.paused ? "paused" : "none"))
            let words = day.questsCompleted > 0
                ? "\(day.date): \(CountText.counted(day.questsCompleted, "quest")) done"
                : (day.joker ? "\(day.date): a joker kept the streak" : (day.paused ? "\(day.date): a quest paused" : "\(day.date): no quest"))
            // #48: a day with quests done opens that day (its quests, task by task).
            let link = day.questsCompleted > 0 && day.date.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}/) != nil
            if link { svg += "<a href=\"/stats/day/\(day.date)\" aria-label=\"\(SVGText.escaped(words))\">" }
            svg += "<g class=\"cal \(state)\(day.daysAgo == 0 ? " today" : "")\"\(link ? "" : " role=\"img\" aria-label=\"\(SVGText.escaped(words))\"")>"
            svg += "<rect x=\"\(SVGText.number(x))\" y=\"\(SVGText.number(y))\" width=\"\(SVGText.number(cell))\" height=\"\(SVGText.number(cell))\" rx=\"8\"/>"
            let dayNumber = day.date.split(separator: "-").last.map { String(Int($0) ?? 0) } ?? ""
            svg += "<text x=\"\(SVGText.number(x + cell / 2))\" y=\"\(SVGText.number(y + cell / 2 + 5))\" text-anchor=\"middle\">\(SVGText.escaped(dayNumber))</text></g>"
            svg += link ? "</a>\n" : "\n"
        }
        return svg + "</svg>"
    }

    /// One small picture per task: its daily accuracy over the last 30 days, 0–100 %.
    static func taskTrend(_ trend: StatsReport.TaskTrend) -> String {
        let width = 170.0, height = 70.0, pad = 6.0
        func x(_ daysAgo: Int) -> Double { pad + (width - 2 * pad) * Double(29 - min(max(daysAgo, 0), 29)) / 29 }
        func y(_ p: Double) -> Double { pad + (height - 2 * pad) * (1 - min(max(p, 0), 100) / 100) }
        let last = trend.days.last.map { "\(Int($0.averageAccuracy.rounded()))% on target" } ?? "–"
        let label = "\(trend.taskDisplayName): \(trend.days.count) day\(trend.days.count == 1 ? "" : "s") in the last 30, the latest day \(last)"
        var svg = "<svg class=\"spark\" viewBox=\"0 0 \(SVGText.number(width)) \(SVGText.number(height))\" role=\"img\" aria-label=\"\(SVGText.escaped(label))\" xmlns=\"http://www.w3.org/2000/svg\">"
        svg += "<rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"\(SVGText.number(width - 1))\" height=\"\(SVGText.number(height - 1))\" rx=\"6\"/>"
        svg += "<line class=\"grid\" x1=\"\(SVGText.number(pad))\" x2=\"\(SVGText.number(width - pad))\" y1=\"\(SVGText.number(y(50)))\" y2=\"\(SVGText.number(y(50)))\"/>"
        if trend.days.count > 1 {
            svg += "<polyline class=\"trend\" points=\"\(trend.days.map { "\(SVGText.number(x($0.daysAgo))),\(SVGText.number(y($0.averageAccuracy)))" }.joined(separator: " "))\"/>"
        }
        for d in trend.days { svg += "<circle class=\"dot\" cx=\"\(SVGText.number(x(d.daysAgo)))\" cy=\"\(SVGText.number(y(d.averageAccuracy)))\" r=\"3\"/>" }
        return svg + "</svg>"
    }

    /// The patterns as bars from the middle: right, the task takes longer than the guess;
    /// left, shorter. Ranked by how far off the guesses usually are (the most to discover
    /// first); the bar grows on a doubling scale (twice the guess, or half, is half a side).
    /// Each task's name has a row of its own above its bar (#48: a name beside the bar ran
    /// into the amount and off the picture); the amount sits on the bar's empty side.
    static func patternBars(_ insights: [StatsReport.Pattern]) -> String? {
        let ranked = insights.sorted { abs($0.bias.relativeBias) > abs($1.bias.relativeBias) }
        guard !ranked.isEmpty else { return nil }
        let width = 360.0, row = 40.0, top = 20.0, mid = 180.0, half = 170.0
        let height = top + Double(ranked.count) * row + 4
        var svg = """
            <svg class="bars" viewBox="0 0 \(SVGText.number(width)) \(SVGText.number(height))" role="group" aria-label="How much longer or shorter than your guess each task usually takes" xmlns="http://www.w3.org/2000/svg">
            <text class="axis" x="\(SVGText.number(mid - 6))" y="13" text-anchor="end">shorter than you think</text><text class="axis" x="\(SVGText.number(mid + 6))" y="13">longer</text>
            <line class="grid" x1="\(SVGText.number(mid))" x2="\(SVGText.number(mid))" y1="\(SVGText.number(top - 4))" y2="\(SVGText.number(height))"/>

            """
        for (i, p) in ranked.enumerated() {
            // relativeBias is (guess − time) / time over the task's means, so the time is
            // 1 / (1 + bias) guesses: 2× the guess is "100% longer", half of it "50% shorter".
            let ratio = 1 / max(1 + p.bias.relativeBias, 0.05)
            let longer = ratio >= 1
            let percent = Int((abs(ratio - 1) * 100).rounded())
            // The bar's length on a doubling scale: 2× (or half) is half the side, 4× the whole.
            let length = max(2, half * min(abs(log2(ratio)) / 2, 1))
            let y = top + Double(i) * row
            let balanced = p.bias.direction == .balanced
            let amount = balanced ? "about right" : "\(percent)% \(longer ? "longer" : "shorter")"
            let words = balanced ? "\(p.taskDisplayName): about as long as you think" : "\(p.taskDisplayName): \(amount) than you think"
            svg += "<g class=\"bar \(longer ? "longer" : "shorter")\" role=\"img\" aria-label=\"\(SVGText.escaped(words))\">"
            svg += "<text class=\"label\" x=\"4\" y=\"\(SVGText.number(y + 14))\">\(SVGText.escaped(p.taskDisplayName))</text>"
            svg += "<rect x=\"\(SVGText.number(longer ? mid : mid - length))\" y=\"\(SVGText.number(y + 21))\" width=\"\(SVGText.number(length))\" height=\"12\" rx=\"3\"/>"
            svg += "<text class=\"axis\" x=\"\(SVGText.number(longer ? mid - 6 : mid + 6))\" y=\"\(SVGText.number(y + 32))\" text-anchor=\"\(longer ? "end" : "start")\">\(amount)</text></g>\n"
        }
        return svg + "</svg>"
    }
}
