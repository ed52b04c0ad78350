import Foundation
import QuestCore
import QuestStore
import QuestReports

/// TREND-1 drawn on the server: the average accuracy of each played day of the last 30 as an
/// SVG line with a dot per day, 0–100 % up the side. No script, no inline style (the CSP
/// forbids both): colours come from classes in app.css. Every piece of text is escaped, though
/// only dates and numbers this type makes reach it.
enum AccuracyChart {
    /// Drawn at a phone's width (#33: on a 390 px phone the labels are 12 px, a day is a
    /// target of 28 px); a wider page scales it up.
    static let width = 360
    static let height = 220
    private static let left = 38, right = 12, top = 22, bottom = 28

    /// The chart, or nil when no day of the window was played (the page says so in words).
    /// Each day is focusable (tap or Tab): its value shows above its dot, with no script.
    static func svg(_ trend: [StatsReport.TrendDay], days: Int = 30) -> String? {
        let points = trend.filter { $0.daysAgo >= 0 && $0.daysAgo < days }
        guard !points.isEmpty, days > 1 else { return nil }
        let plotW = Double(width - left - right), plotH = Double(height - top - bottom)
        func x(_ daysAgo: Int) -> Double { Double(left) + plotW * Double(days - 1 - daysAgo) / Double(days - 1) }
        func y(_ percent: Double) -> Double { Double(top) + plotH * (1 - min(max(percent, 0), 100) / 100) }

        let low = points.map(\.averageAccuracy).min() ?? 0, high = points.map(\.averageAccuracy).max() ?? 0
        let summary = "\(points.count) day\(points.count == 1 ? "" : "s") played in the last \(days); "
            + (points.count == 1 ? "accuracy \(Int(low.rounded()))%" : "daily accuracy from \(Int(low.rounded()))% to \(Int(high.rounded()))%")
        var svg = """
            <svg class="chart" viewBox="0 0 \(width) \(height)" role="group" aria-labelledby="chart-title chart-desc" \
            xmlns="http://www.w3.org/2000/svg">
            <title id="chart-title">Accuracy per day, last \(days) days</title>
            <desc id="chart-desc">\(SVGText.escaped(summary))</desc>

            """
        for percent in [0.0, 50, 100] {
            svg += "<line class=\"grid\" x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(SVGText.number(y(percent)))\" y2=\"\(SVGText.number(y(percent)))\"/>"
            svg += "<text class=\"axis\" x=\"\(left - 5)\" y=\"\(SVGText.number(y(percent) + 4))\" text-anchor=\"end\">\(Int(percent))%</text>\n"
        }
        svg += "<text class=\"axis\" x=\"\(left)\" y=\"\(height - 8)\">\(days - 1) days ago</text>"
        svg += "<text class=\"axis\" x=\"\(width - right)\" y=\"\(height - 8)\" text-anchor=\"end\">today</text>\n"
        if points.count > 1 {
            let line = points.map { "\(SVGText.number(x($0.daysAgo))),\(SVGText.number(y($0.averageAccuracy)))" }.joined(separator: " ")
            svg += "<polyline class=\"trend\" points=\"\(line)\"/>\n"
        }
        for p in points {
            let percent = Int(p.averageAccuracy.rounded())
            // #48: a tapped day says its date beside its value ("23 Nov: 75%"), as its label does.
            let day = Self.dayWords(p.date)
            let label = "\(day): \(percent)% over \(p.estimationCount) estimate\(p.estimationCount == 1 ? "" : "s")"
            let cx = x(p.daysAgo), cy = y(p.averageAccuracy)
            // The value above the dot (below it near the top), kept inside the chart.
            let tx = min(max(cx, Double(left) + 40), Double(width - right) - 40), ty = cy < Double(top) + 16 ? cy + 20 : cy - 10
            svg += "<g class=\"point\" tabindex=\"0\" role=\"img\" aria-label=\"\(SVGText.escaped(label))\">"
            svg += "<circle class=\"hit\" cx=\"\(SVGText.number(cx))\" cy=\"\(SVGText.number(cy))\" r=\"14\"/>"
            svg += "<circle class=\"day\" cx=\"\(SVGText.number(cx))\" cy=\"\(SVGText.number(cy))\" r=\"4.5\"><title>\(SVGText.escaped(label))</title></circle>"
            svg += "<text class=\"value\" x=\"\(SVGText.number(tx))\" y=\"\(SVGText.number(ty))\" text-anchor=\"middle\">\(SVGText.escaped(day)): \(percent)%</text></g>\n"
        }
        return svg + "</svg>"
    }

    /// "2026-11-23" as "23 Nov" (the report's day, in the pages' month words); anything else as given.
    static func dayWords(_ date: String) -> String {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return date }
        return "\(parts[2]) \(CalendarWords.month(parts[1]))"
    }
}
