import Foundation
import QuestCore

/// What the server-drawn pictures (the accuracy chart, the stats pictures) write into SVG:
/// coordinates with one decimal, and text through the one markup escaper.
enum SVGText {
    static func number(_ v: Double) -> String { String(format: "%.1f", v) }
    static func escaped(_ text: String) -> String { DisplayText.markupEscaped(text) }
}
