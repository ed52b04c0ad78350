import Foundation

/// The box's programs find each other in their own folder (a package installs `questbox` and
/// `questbox-web` side by side in /usr/bin; a build puts them side by side too): never
/// through `PATH`, which a service's environment need not have.
public enum SiblingProgram {
    /// `name` in the folder of the running program (`executable`: the link to it), if it is
    /// there and executable.
    public static func path(of name: String, executable: String = "/proc/self/exe") -> String? {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: executable)) ?? (CommandLine.arguments.first ?? "")
        let candidate = ((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }
}
