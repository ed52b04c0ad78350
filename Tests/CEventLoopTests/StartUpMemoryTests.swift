import CEventLoop
import Testing

/// Statically initialised, so it lives in the program's writable data segment: the release
/// must keep what the process wrote there (MADV_DONTNEED on it would bring back 7 and 9).
nonisolated(unsafe) private var writtenBeforeRelease: (Int, Int) = (7, 9)

@Suite("Start-up memory handed back once the box is ready (#36)")
struct StartUpMemoryTests {
    @inline(never) static func sum(_ values: [Int]) -> Int { values.reduce(0, +) }

    @Test("the code mappings go back, the code still runs, and data written before is kept (writable and RELRO segments untouched)")
    func releaseKeepsWrittenData() {
        writtenBeforeRelease = (11, 13)
        let before = qb_resident_kb()
        let segments = qb_release_code_mappings()
        let after = qb_resident_kb()
        // The test program and at least libc each have a read-only segment.
        #expect(segments >= 2)
        #expect(before > 0 && after > 0)
        #expect(after < before, "resident \(before) KiB before, \(after) KiB after")
        #expect(writtenBeforeRelease == (11, 13))
        // Code, type metadata (RELRO) and the heap still work after the release.
        #expect(Self.sum(Array(1...100)) == 5050)
        #expect("\(Self.self)".contains("StartUpMemoryTests"))
    }
}
