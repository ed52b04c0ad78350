// libFuzzer's entry for the box's three input formats (see FuzzTargets.FuzzInput). Built only
// by Tests/Fuzz/run.sh with -sanitize=fuzzer,address and -D FUZZING; a plain build makes a
// replayer that runs the files given on the command line through the same function.
import FuzzTargets

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzInput.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if FUZZING
// SwiftPM links an executable's entry point under this name; libFuzzer's driver takes over.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzInputs_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, { data, size in fuzzOne(data, size) })
}
#else
import Foundation

@main
struct Replay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let accepted = FuzzInput.check([UInt8](data))
            print("\(accepted ? "accepted" : "refused ") \(path)")
        }
    }
}
#endif
