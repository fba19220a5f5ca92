#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libFuzzer's driver, for targets whose entry point SwiftPM names `<Target>_main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// Runs libFuzzer with the process's arguments and `target` as the test function.
///
/// `STROLL_FUZZ_INJECT=crash` or `leak` runs a test function that crashes, or
/// leaks, on its first input instead: `Fuzz/selftest.sh` shows with it that
/// the fuzz stage fails on each kind of finding.
public func fuzz(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                 _ target: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt {
    var count = argc
    var arguments = argv
    switch getenv("STROLL_FUZZ_INJECT").map({ String(cString: $0) }) {
    case "crash": return runFuzzerDriver(&count, &arguments, injectedCrash)
    case "leak": return runFuzzerDriver(&count, &arguments, injectedLeak)
    default: return runFuzzerDriver(&count, &arguments, target)
    }
}

/// A finding on purpose: a trap on any input.
private func injectedCrash(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    fatalError("a crash injected by STROLL_FUZZ_INJECT=crash")
}

/// A finding on purpose: memory allocated for each input and never freed.
private func injectedLeak(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let kept = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
    kept.initialize(repeating: count > 0 ? start.pointee : 0, count: 64)
    return CInt(kept[0] & 0)
}
