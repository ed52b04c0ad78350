import Foundation

/// Where the box keeps its data: `--data DIR`, else `$QUESTBOX_DATA`, else
/// `/var/lib/questbox` for root, else `~/.local/share/questbox`. Created on first use.
public enum DataDirectory {
    public static func resolve(option: String?, environment: [String: String], isRoot: Bool, home: String) -> String {
        if let option, !option.isEmpty { return option }
        if let env = environment["QUESTBOX_DATA"], !env.isEmpty { return env }
        if isRoot { return "/var/lib/questbox" }
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (home as NSString).appendingPathComponent(".local/share")
        return (base as NSString).appendingPathComponent("questbox")
    }

    public static func current(option: String?) -> String {
        resolve(
            option: option, environment: ProcessInfo.processInfo.environment, isRoot: getuid() == 0,
            home: FileManager.default.homeDirectoryForCurrentUser.path)
    }

    public static func databasePath(in directory: String) -> String {
        (directory as NSString).appendingPathComponent("questbox.sqlite")
    }
}
