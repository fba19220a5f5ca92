import Foundation
import FuzzDriver
import Replay

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzState(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = RememberedState.decode(Data(bytes: start, count: count))
    return 0
}

@_cdecl("FuzzState_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzState(data, size) }
}
