import Foundation
import FuzzDriver
import Traces

/// Any bytes (plain or gzip): a trace or an error naming the line, never a crash or a hang; every writer takes the result.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKML(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let trace = try? TraceReader.read(bytes: data, name: "fuzz.kml", format: .kml) {
        _ = TraceStatistics(trace)
        for format in TraceWriter.OutputFormat.allCases { _ = TraceWriter.write(trace, as: format) }
    }
    return 0
}

@_cdecl("FuzzKML_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzKML(data, size) }
}
