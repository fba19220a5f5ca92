import Foundation
import Scenarios

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzState(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = RememberedState.decode(Data(bytes: start, count: count))
    return 0
}

/// SwiftPM names an executable's entry point `FuzzState_main`; hand it to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzState_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzState(data, size) }
}
