#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A folder the box keeps its own files in (the store's backups and uploads, the voice's
/// clips): made if missing, with its parents as `mkdir -p` makes them, and the owner's alone
/// (0700) whatever the umask (#47: a folder the box makes shows nothing to other users). A
/// folder of ours that is wider is narrowed; one of another user's is left as it is.
public enum PrivateDirectory {
    public static func make(_ path: String) throws(InputFileError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        let parts = path.split(separator: "/")
        for (i, part) in parts.enumerated() {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + part
            // Parents as the umask has them; the folder itself private from the start.
            if mkdir(prefix, i == parts.count - 1 ? 0o700 : 0o777) != 0, errno != EEXIST {
                throw InputFileError(path: prefix, problem: "cannot make the folder (\(String(cString: strerror(errno))))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw InputFileError(path: path, problem: "is not a folder")
        }
        // A link to a folder (backups on a stick) is followed, never changed.
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 != 0 else { return }
        _ = chmod(path, info.st_mode & 0o700)
    }
}
