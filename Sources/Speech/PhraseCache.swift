import Audio
import Foundation
import InputFiles

/// #35: phrases the box has rendered, kept as clips in the data folder (`voice/`), so a phrase
/// known ahead (a task's name, a guess, "Go!") is read, not rendered, when it is said, and
/// survives a restart. One file per phrase, named by a hash of its key and holding the key
/// itself and a checksum of its samples: a file that is damaged, cut short, foreign or not a
/// regular file reads as missing (and is rendered again), never as a crash or wrong words.
/// Bounded: past `maximumBytes` the least recently used files go.
public final class PhraseCache: @unchecked Sendable {
    /// One line naming the folder and what went wrong.
    public struct CacheError: Error, CustomStringConvertible {
        public let description: String
    }

    /// What a clip was rendered from: the same words in another voice or rate are another clip.
    public struct Key: Hashable, Sendable {
        /// The renderer's identity (engine, version, voice, rate).
        public var voice: String
        public var text: String

        public init(voice: String, text: String) {
            self.voice = voice
            self.text = text
        }

        var identity: String { "\(voice)|\(text)" }

        /// FNV-1a 64 of the identity, in hex: a file name with no character from the text.
        var fileName: String {
            let hash = PhraseCache.fnv1a(identity.utf8)
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex + ".clip"
        }
    }

    public let directory: String
    public let maximumBytes: Int
    static let magic = Array("QBVOICE1".utf8)
    /// A phrase is a sentence or two; 60 s is what the renderer gives at most.
    static let maximumFrames = 60 * SoundClip.sampleRate
    static let maximumIdentityBytes = 4_096
    private let lock = NSLock()

    public init(directory: String, maximumBytes: Int = 32 << 20) {
        self.directory = directory
        self.maximumBytes = maximumBytes
    }

    /// The box's cache: `voice/` in its data folder.
    public convenience init(dataDirectory: String) {
        self.init(directory: (dataDirectory as NSString).appendingPathComponent("voice"))
    }

    /// Of `pieces`, those with no clip kept for `voice`, each once, in order: what is left to
    /// render. `reading`: each kept clip is read and checked (a damaged one is missing).
    public func missing(_ pieces: [String], voice: String, reading: Bool = false) -> [String] {
        Set(pieces).sorted().filter { piece in
            let key = Key(voice: voice, text: piece)
            return reading ? clip(for: key) == nil : !has(key)
        }
    }

    public func path(for key: Key) -> String { (directory as NSString).appendingPathComponent(key.fileName) }

    /// Whether a clip for `key` is kept (read, it may still turn out damaged: then it is
    /// rendered again when said).
    public func has(_ key: Key) -> Bool {
        var info = stat()
        return lstat(path(for: key), &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The clip, or nil when it is not there or cannot be trusted (a damaged file is removed).
    public func clip(for key: Key) -> SoundClip? {
        let path = path(for: key)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, maximumBytes: Self.fileBytes(identity: Self.maximumIdentityBytes, frames: Self.maximumFrames))
        } catch {
            discard(path)
            return nil
        }
        guard let samples = Self.decode(bytes, identity: key.identity) else {
            discard(path)
            return nil
        }
        // Used now: the last to go when the cache is trimmed.
        _ = utimes(path, nil)
        return SoundClip(samples: samples, channels: 1)
    }

    /// Keeps a mono 48 kHz clip (written whole to a temporary file, then renamed: a crash
    /// never leaves half a clip under the phrase's name), then trims the cache. `replacing`
    /// false keeps a clip already there (the one that may have been played).
    public func store(_ clip: SoundClip, for key: Key, replacing: Bool = true) throws {
        guard clip.channels == 1, clip.frameCount > 0, clip.frameCount <= Self.maximumFrames else { return }
        let samples = clip.samples
        let identity = Array(key.identity.utf8)
        guard identity.count <= Self.maximumIdentityBytes else { return }
        lock.lock()
        defer { lock.unlock() }
        if !replacing, has(key) { return }
        try PrivateDirectory.make(directory)
        var data = Self.magic
        Self.append(UInt32(identity.count), to: &data)
        data += identity
        Self.append(UInt32(SoundClip.sampleRate), to: &data)
        Self.append(UInt32(samples.count), to: &data)
        samples.withUnsafeBytes { raw in
            Self.append(Self.checksum(raw), to: &data)
            data += raw
        }
        let final = path(for: key)
        let temporary = final + ".tmp"
        unlink(temporary)
        do {
            try Data(data).write(to: URL(fileURLWithPath: temporary))
            // #47: her quest names are in the clips: the owner's alone whatever the umask.
            guard chmod(temporary, 0o600) == 0 else { throw CacheError(description: String(cString: strerror(errno))) }
        } catch {
            // A full card leaves no half clip behind.
            unlink(temporary)
            throw CacheError(description: "\(directory): cannot keep a clip (\(error.localizedDescription))")
        }
        guard rename(temporary, final) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CacheError(description: "\(directory): cannot keep a clip (\(reason))")
        }
        trimLocked()
    }

    /// Removes the least recently used clips until the cache fits `maximumBytes`.
    public func trim() {
        lock.lock()
        defer { lock.unlock() }
        trimLocked()
    }

    /// The clips kept and their bytes.
    public var usage: (files: Int, bytes: Int) {
        let files = entries()
        return (files.count, files.reduce(0) { $0 + $1.bytes })
    }

    private func trimLocked() {
        var files = entries()
        var total = files.reduce(0) { $0 + $1.bytes }
        guard total > maximumBytes else { return }
        files.sort { $0.used < $1.used }
        for file in files where total > maximumBytes {
            unlink(file.path)
            total -= file.bytes
        }
    }

    private func entries() -> [(path: String, bytes: Int, used: Double)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { $0.hasSuffix(".clip") }.compactMap { name in
            let path = (directory as NSString).appendingPathComponent(name)
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return (path, Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        }
    }

    private func discard(_ path: String) { unlink(path) }

    static func fileBytes(identity: Int, frames: Int) -> Int { magic.count + 4 + identity + 4 + 4 + 8 + 2 * frames }

    /// The samples when `bytes` is a whole clip file for `identity`. Read as the box says a
    /// phrase: the samples are copied as they lie (16-bit little-endian, as every Pi and PC
    /// stores them) and checked 8 bytes at a time, so a clip costs microseconds, not a loop
    /// over every byte.
    static func decode(_ bytes: [UInt8], identity: String) -> [Int16]? {
        bytes.withUnsafeBytes { raw -> [Int16]? in
            var at = 0
            func uint(_ n: Int) -> UInt64? {
                guard raw.count - at >= n else { return nil }
                defer { at += n }
                return (0..<n).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(raw[at + $1]) }
            }
            let name = Array(identity.utf8)
            guard raw.count >= magic.count, Array(raw[0..<magic.count]) == magic else { return nil }
            at = magic.count
            guard let identityLength = uint(4), identityLength == UInt64(name.count), raw.count - at >= name.count,
                  Array(raw[at..<(at + name.count)]) == name
            else { return nil }
            at += name.count
            guard uint(4) == UInt64(SoundClip.sampleRate), let frames = uint(4), frames > 0, frames <= UInt64(maximumFrames),
                  let stored = uint(8), raw.count - at == 2 * Int(frames)
            else { return nil }
            let sampleBytes = UnsafeRawBufferPointer(rebasing: raw[at...])
            guard checksum(sampleBytes) == stored else { return nil }
            return [Int16](unsafeUninitializedCapacity: Int(frames)) { buffer, count in
                let target = UnsafeMutableRawBufferPointer(buffer)
                target.copyMemory(from: sampleBytes)
                #if _endian(big)
                for i in 0..<Int(frames) { buffer[i] = Int16(littleEndian: buffer[i]) }
                #endif
                count = Int(frames)
            }
        }
    }

    /// FNV-1a over 8-byte words (then the bytes left): enough to tell a damaged clip, cheap
    /// enough to check at every phrase.
    static func checksum(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var i = 0
        while i + 8 <= raw.count {
            hash = (hash ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))) &* 0x100_0000_01b3
            i += 8
        }
        while i < raw.count {
            hash = (hash ^ UInt64(raw[i])) &* 0x100_0000_01b3
            i += 1
        }
        return hash
    }

    static func append<T: FixedWidthInteger>(_ value: T, to data: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { data += $0 }
    }

    static func fnv1a<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
