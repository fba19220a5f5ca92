import Foundation
import FuzzDriver
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

@_cdecl("FuzzPlaces_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzPlaces(data, size) }
}
