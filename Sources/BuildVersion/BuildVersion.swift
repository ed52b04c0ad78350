/// The version this program was built from (`questbox --version`); `text` is written at
/// build time by scripts/version.sh from `git describe` (the VersionStamp plugin).
public enum BuildVersion {}

extension BuildVersion {
    /// The architecture this program was built for, by Debian's name: a Pi's package is arm64.
    public static var architecture: String {
        #if arch(arm64)
        "arm64"
        #elseif arch(x86_64)
        "amd64"
        #else
        "unknown"
        #endif
    }

    /// What `--version` prints: "0.1.0+git379.g2ef7df0 (arm64)".
    public static var described: String { "\(text) (\(architecture))" }
}
