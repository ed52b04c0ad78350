import Audio
import Foundation
import Speech
#if canImport(Glibc)
import Glibc
#endif

/// #35: eSpeak NG in a process of its own (`questbox voice serve`), so rendering a phrase
/// costs the box's process nothing but a line on a pipe and a clip read from the cache: no
/// CPU time on its threads, no heap shared with its loop and audio thread (glibc's arena
/// locks are not priority-inheriting), no page-table changes in its address space. In the
/// HIL rig a renderer inside the box stalled its real-time audio thread for up to 160 ms.
///
/// The process renders each phrase into the `PhraseCache` and answers one line; it runs at
/// nice 10 and ends when its standard input closes (the box stopped).
/// Requests: `say\tTEXT` (render it unless a sound clip is kept; the clip is then read from
/// the cache) and `keep\tTEXT` (the same, for later). Answers: `ok` or `error\tWHY`. Its first
/// line is `ready\tIDENTITY` or `error\tWHY`.
public final class VoiceProcess: SpeechRenderer, @unchecked Sendable {
    /// The process's engine, version, voice and rate (its first line).
    public var identity: String { identityStore }
    private var identityStore = ""
    public var keepsClips: Bool { true }
    public var isUsable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return broken == nil
    }
    private let cache: PhraseCache
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private let lock = NSLock()
    private var buffered: [UInt8] = []
    private var broken: String?

    /// Starts `executable voice serve` (this program, by default) and waits for its first
    /// line: a missing eSpeak NG data folder or an unknown voice is a `SpeechError`.
    /// `environment`: the process's (default: the box's own; `QUESTBOX_ESPEAK_DATA` names
    /// eSpeak NG's data folder).
    public init(
        voice: String, rate: Int, cache: PhraseCache, executable: String = VoiceProcess.thisProgram(), environment: [String: String]? = nil
    ) throws(SpeechError) {
        self.cache = cache
        // A request written after the process died must be an error here, not SIGPIPE ending the box.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["voice", "serve", "--voice", voice, "--rate", String(rate), "--cache", cache.directory]
        let toChild = Pipe(), fromChild = Pipe()
        process.standardInput = toChild
        process.standardOutput = fromChild
        if let environment { process.environment = environment }
        do {
            try process.run()
        } catch {
            throw SpeechError("the voice process \(executable) did not start: \(error.localizedDescription)")
        }
        self.process = process
        input = toChild.fileHandleForWriting
        output = fromChild.fileHandleForReading
        let first = readLine()
        guard let first, first.hasPrefix("ready\t") else {
            stop()
            throw SpeechError(first.map { $0.hasPrefix("error\t") ? String($0.dropFirst(6)) : "the voice process said \"\($0.prefix(80))\"" }
                ?? "the voice process ended before it was ready")
        }
        identityStore = String(first.dropFirst(6))
    }

    deinit { stop() }

    /// The process's id (tests, `ps`).
    public var processID: Int32 { process.processIdentifier }

    public func render(_ text: String) throws(SpeechError) -> SoundClip {
        let words = Self.oneLine(text)
        try request("say", words)
        guard let clip = cache.clip(for: PhraseCache.Key(voice: identityStore, text: words)) else {
            throw SpeechError("the voice process kept no clip for \"\(words.prefix(40))\" in \(cache.directory)")
        }
        return clip
    }

    public func prepare(_ text: String) throws(SpeechError) {
        try request("keep", Self.oneLine(text))
    }

    private func request(_ verb: String, _ words: String) throws(SpeechError) {
        lock.lock()
        defer { lock.unlock() }
        if let broken { throw SpeechError(broken) }
        do {
            try input.write(contentsOf: Data("\(verb)\t\(words)\n".utf8))
        } catch {
            broken = "the voice process is gone (\(error.localizedDescription))"
            throw SpeechError(broken ?? "")
        }
        guard let answer = readLineLocked() else {
            broken = "the voice process ended"
            throw SpeechError(broken ?? "")
        }
        guard answer == "ok" else {
            throw SpeechError(answer.hasPrefix("error\t") ? String(answer.dropFirst(6)) : "the voice process said \"\(answer.prefix(80))\"")
        }
    }

    private func readLine() -> String? {
        lock.lock()
        defer { lock.unlock() }
        return readLineLocked()
    }

    /// One line from the process (at most 4 KiB: an answer is short).
    private func readLineLocked() -> String? {
        while true {
            if let end = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<end], as: UTF8.self)
                buffered.removeSubrange(...end)
                return line
            }
            // read(2), not FileHandle.read(upToCount:), which waits for the whole count.
            var chunk = [UInt8](repeating: 0, count: 512)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(output.fileDescriptor, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard buffered.count < 4_096, n > 0 else { return nil }
            buffered += chunk[..<n]
        }
    }

    private func stop() {
        try? input.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// A phrase as one request line: the words the voice would say anyway (control
    /// characters, tabs and newlines are not said).
    static func oneLine(_ text: String) -> String { SpeakableText.cleaned(text) }

    /// This program's own path (the box runs `questbox`; its voice is `questbox voice serve`).
    public static func thisProgram() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? "questbox"
    }
}
