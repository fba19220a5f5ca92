import Foundation
import Proximity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGolden(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let golden = try? GoldenTimeline.decode(data) {
        _ = golden.firstDivergence(from: GoldenTimeline(about: "empty"))
        _ = GoldenTimeline(about: "empty").firstDivergence(from: golden)
    }
    return 0
}

/// SwiftPM names an executable's entry point `FuzzGolden_main`; hand it to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzGolden_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzGolden(data, size) }
}
