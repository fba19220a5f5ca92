import Foundation
import FuzzDriver
import Traces

/// Any bytes as a KMZ (ZIP) archive: a trace or an error, never a crash, a hang or
/// unbounded memory; whatever reads is written as KMZ and must read back to the same tracks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKMZ(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let trace = try? TraceReader.read(bytes: data, name: "fuzz.kmz", format: .kml) {
        let kmz = TraceWriter.data(trace, as: .kmz)
        guard let back = try? TraceReader.read(bytes: kmz, name: "back.kmz", format: .kml) else {
            fatalError("Stroll's own KMZ of a trace it read does not read back")
        }
        if back.replaySegments.map(\.fixes.count) != trace.replaySegments.map(\.fixes.count) {
            fatalError("Stroll's own KMZ reads back with other point counts")
        }
    }
    return 0
}

@_cdecl("FuzzKMZ_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzKMZ(data, size) }
}
