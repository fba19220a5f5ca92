import Foundation
import Proximity

/// The same bytes as a property list, JSON and CSV list of places.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaces(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    for name in ["fuzz.plist", "fuzz.json", "fuzz.csv"] {
        if let set = try? PlaceSet.load(data: data, name: name), let first = set.places.first {
            var engine = ProximityEngine(places: set.places)
            _ = engine.update(from: first.coordinate)
        }
    }
    return 0
}

/// SwiftPM names an executable's entry point `FuzzPlaces_main`; hand it to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzPlaces_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzPlaces(data, size) }
}
