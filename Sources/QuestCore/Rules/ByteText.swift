
/// A file's size as the CLI and the web pages show it: "12 KiB", "3.1 MiB".
public enum ByteText: Sendable {
    public static func format(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) : String(format: "%.0f KiB", (Double(bytes) / 1024).rounded(.up))
    }
}
