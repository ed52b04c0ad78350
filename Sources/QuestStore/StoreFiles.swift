import Foundation

/// The store's files on disk (#31): the database, its WAL and shared-memory files and every
/// backup are the owner's alone (0600) whatever the umask, since they hold the PIN's hash; a
/// FIFO, a directory or a device where the database should be is refused in one line before
/// SQLite opens it (opening a FIFO would hang); and writers opening the same store at once
/// (eight `questbox backup` in one second) create and migrate it one at a time.
enum StoreFiles {
    static let privateMode: mode_t = 0o600

    /// Refuses anything at `path` but a regular file (or nothing).
    static func checkKind(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw StoreError.io("\(path): cannot open the store (\(String(cString: strerror(errno))))")
        }
        let kind: String? = switch info.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
        if let kind { throw StoreError.io("\(path): is \(kind), not the box's database file; move it away or choose another --data folder") }
    }

    /// Before a writer opens the store: created empty and private when missing (SQLite gives
    /// the WAL and shared-memory files the database's mode).
    static func createIfMissing(_ path: String) throws {
        try checkKind(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, privateMode)
        guard fd >= 0 else { return }    // there already (or no folder: SQLite says why)
        _ = fchmod(fd, privateMode)      // whatever the umask
        _ = close(fd)
    }

    /// Once the store is known to be ours: it and its side files made private if they are
    /// not (a store made before #31 was 0644).
    static func makeStorePrivate(_ path: String) {
        for file in [path, path + "-wal", path + "-shm"] { makePrivate(file) }
    }

    /// Group and other bits cleared on a file of ours (nothing when it is not there or not ours).
    static func makePrivate(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0, info.st_uid == getuid() else { return }
        _ = chmod(path, info.st_mode & 0o700)
    }

    /// An empty private file at `path` for a backup to be written into (VACUUM INTO takes an
    /// empty file); false (with errno set) if it cannot be made or anything is there already.
    static func createPrivateEmpty(_ path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, privateMode)
        guard fd >= 0 else { return false }
        _ = fchmod(fd, privateMode)
        _ = close(fd)
        return true
    }

    /// Runs `body` holding an exclusive lock on the store's folder (flock on the directory:
    /// no lock file is left, and SQLite's own POSIX locks on the database are untouched).
    static func withFolderLock<T>(of path: String, _ body: () throws -> T) throws -> T {
        let folder = (path as NSString).deletingLastPathComponent
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return try body() }     // no folder to lock: SQLite will say why
        defer { _ = close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }
}
