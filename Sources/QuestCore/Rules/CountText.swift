/// A count with its noun, as a person writes it: "1 quest", "2 quests", "0 problems".
/// Every surface's words (screens, reflections, the command line) count the same way.
public enum CountText: Sendable {
    public static func counted(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }
}
