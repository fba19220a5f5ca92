import Foundation
import Traces

/// Any bytes: a trace or an error naming line and column, never a crash or a hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let trace = try? TraceReader.read(bytes: data, name: "fuzz.gpx", format: .gpx) {
        _ = TraceStatistics(trace)
        _ = TraceWriter.gpx(trace)
    }
    return 0
}

/// SwiftPM names an executable's entry point `FuzzGPX_main`; hand it to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzGPX_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzGPX(data, size) }
}
