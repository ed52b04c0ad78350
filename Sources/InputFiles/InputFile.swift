#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a file given to the box was not read, as "<path>: <problem>".
public struct InputFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var description: String { "\(path): \(problem)" }

    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }
}

/// Reads a file a person or another program handed to the box (a routine, an events script,
/// a board profile, a backup) as hostile input: only a regular file, opened non-blocking so a
/// FIFO or a device can never hang the reader, checked with fstat before any byte is read,
/// and never more than the caller's limit even if the file grows while it is read.
public enum InputFile {
    /// An open regular file; the descriptor is closed when the value is released.
    public final class Regular {
        public let descriptor: Int32
        public let size: Int
        public let path: String

        init(descriptor: Int32, size: Int, path: String) {
            self.descriptor = descriptor
            self.size = size
            self.path = path
        }

        deinit { _ = close(descriptor) }
    }

    public static func openRegular(_ path: String, maximumBytes: Int) throws(InputFileError) -> Regular {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw InputFileError(path: path, problem: errno == ENOENT ? "no such file" : "cannot read (\(reason()))") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let problem = "cannot read (\(reason()))"
            _ = close(fd)
            throw InputFileError(path: path, problem: problem)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            _ = close(fd)
            throw InputFileError(path: path, problem: "not a regular file")
        }
        guard info.st_size <= maximumBytes else {
            _ = close(fd)
            throw InputFileError(path: path, problem: "\(info.st_size) bytes, more than the \(describe(maximumBytes)) such a file may have")
        }
        return Regular(descriptor: fd, size: Int(info.st_size), path: path)
    }

    /// The whole file, at most `maximumBytes`.
    public static func read(_ path: String, maximumBytes: Int) throws(InputFileError) -> [UInt8] {
        let file = try openRegular(path, maximumBytes: maximumBytes)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(file.size)
        try copy(file) { chunk in bytes.append(contentsOf: chunk) }
        return bytes
    }

    /// Reads `file` in chunks, handing each to `sink`; never more than the size fstat gave.
    public static func copy(_ file: Regular, _ sink: (ArraySlice<UInt8>) throws(InputFileError) -> Void) throws(InputFileError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(file.descriptor, $0.baseAddress, $0.count) }
            if n == 0 { return }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw InputFileError(path: file.path, problem: "cannot read (\(reason()))")
            }
            total += n
            // The file may have grown since fstat: what is read is capped too.
            guard total <= file.size else { throw InputFileError(path: file.path, problem: "grew while it was read") }
            try sink(buffer[0..<n])
        }
    }

    static func reason() -> String { String(cString: strerror(errno)) }

    static func describe(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : bytes >= 1 << 10 && bytes % (1 << 10) == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }
}
