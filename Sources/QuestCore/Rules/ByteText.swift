/// A file's size as a person reads it: "1.2 MiB", "36 KiB" (KiB rounded up: a small file is
/// never "0 KiB"). Digits built by hand: `String(format:)` is Foundation's, not the core's.
public enum ByteText: Sendable {
    public static func format(_ bytes: Int) -> String {
        if bytes >= 1 << 20 {
            let tenths = Int((Double(bytes) / Double(1 << 20) * 10).rounded(.toNearestOrEven))
            return "\(tenths / 10).\(tenths % 10) MiB"
        }
        return "\(Int((Double(bytes) / 1024).rounded(.up))) KiB"
    }
}
