import Foundation
import FuzzDriver
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

@_cdecl("FuzzGPX_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzGPX(data, size) }
}
