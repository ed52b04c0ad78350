import Foundation

// Helpers every test target shares: temporary folders, the built programs and running them
// (never shipped). Foundation alone: the arm64 build of the pure modules' tests has no store.

/// A fresh directory under the system temp folder, removed by the caller when wanted.
public func temporaryDirectory(_ name: String = #function) -> String {
    let dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("questbox-tests-\(UUID().uuidString.prefix(8))")
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// A built product (`questbox`, `StoreCrashWriter`) of this test run.
public func productPath(_ name: String) -> String {
    var candidates: [String] = []
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        candidates.append(dir.appendingPathComponent(name).path)
        dir.deleteLastPathComponent()
    }
    candidates.append("\(packageRoot)/.build/debug/\(name)")
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
}

public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// A child that exits before reading its input (a missing pty, a crash) must fail its test
/// with the child's output, not end the whole test run with SIGPIPE: writes to a closed pipe
/// then throw EPIPE, which the writers below ignore.
public func ignoreBrokenPipes() {
    signal(SIGPIPE, SIG_IGN)
}

/// Writes to a child's standard input; a child that has gone is seen in its status and output.
public func send(_ text: String, to input: Pipe) {
    try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
}

/// Runs a program to completion with the given standard input.
public func runProcess(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil) throws -> ProcessResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    if let environment { p.environment = environment }
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    ignoreBrokenPipes()
    try p.run()
    if let input { send(input, to: inp) }
    try inp.fileHandleForWriting.close()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return ProcessResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}
