import Foundation
import Traces

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let trace = try? TraceReader.read(bytes: data, name: "fuzz.csv", format: .csv) {
        _ = TraceStatistics(trace)
        _ = TraceWriter.csv(trace)
    }
    _ = try? CSVTable.read(data: data, name: "fuzz.csv")
    return 0
}

/// SwiftPM names an executable's entry point `FuzzCSV_main`; hand it to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzCSV_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzCSV(data, size) }
}
