import Foundation
import FuzzDriver
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

@_cdecl("FuzzCSV_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzCSV(data, size) }
}
