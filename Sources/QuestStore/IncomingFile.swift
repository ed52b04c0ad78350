import Foundation
import InputFiles

/// Bytes on their way to a restore (the web's upload): a private file (0600, never an existing
/// one) in the store's backups folder, named `.restore-upload-…` so the store's sweep removes
/// one a killed process left. Closed and removed when released.
public final class IncomingFile {
    public let path: String
    private var fd: Int32

    init(directory: String) throws {
        try PrivateDirectory.make(directory)
        path = (directory as NSString).appendingPathComponent(".restore-upload-\(UUID().uuidString)")
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, StoreFiles.privateMode)
        guard fd >= 0 else { throw StoreError.io("\(path): cannot store the upload (\(String(cString: strerror(errno))))") }
    }

    deinit { remove() }

    /// Why bytes could not be kept.
    public enum Failure: Error, Equatable {
        /// The disk is full (or the user's quota).
        case noRoom
        case failed(String)
    }

    /// Appends `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let w = Foundation.write(fd, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
            if w < 0 && errno == EINTR { continue }
            guard w > 0 else {
                throw w == 0 || errno == ENOSPC || errno == EDQUOT ? .noRoom : .failed("\(path): \(String(cString: strerror(errno)))")
            }
            offset += w
        }
    }

    /// No more bytes: the file stays until `remove` (or release).
    public func finish() {
        if fd >= 0 { Foundation.close(fd) }
        fd = -1
    }

    public func remove() {
        finish()
        unlink(path)
    }
}

extension BackupStore {
    /// A new private file for bytes on their way to `restore(from:)`.
    public func incomingFile() throws -> IncomingFile { try IncomingFile(directory: directory) }
}
