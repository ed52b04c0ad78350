/// A count with its noun, as a person writes it: "1 quest", "2 quests", "0 problems".
func counted(_ count: Int, _ singular: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
