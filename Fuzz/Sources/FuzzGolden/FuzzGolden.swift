import Foundation
import FuzzDriver
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

@_cdecl("FuzzGolden_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzGolden(data, size) }
}
