import Foundation
import FuzzDriver
import PlacesOSM

/// Any bytes as an OpenStreetMap PBF and as OSM XML (the readers stream from a
/// file, so each input is written to one first): places or an OSMError, never
/// a crash, a hang or unbounded memory; every place read has a valid coordinate
/// and an id of the form TYPE/ID.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOSM(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-fuzz-osm-\(getpid())").path
    let filters = [OSMFilter(key: "amenity"), OSMFilter(key: "shop")]
    for ext in [".osm.pbf", ".osm"] {
        let path = base + ext
        guard FileManager.default.createFile(atPath: path, contents: data) else { fatalError("cannot write \(path)") }
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let set = try? OSMPlaces.load(path, filters: filters) else { continue }
        for p in set.places {
            let c = p.coordinate
            if !(abs(c.latitude) <= 90 && abs(c.longitude) <= 180) { fatalError("a place outside the world: \(p)") }
            if !(p.id.hasPrefix("node/") || p.id.hasPrefix("way/") || p.id.hasPrefix("relation/")) { fatalError("an id not TYPE/ID: \(p.id)") }
        }
    }
    if OSMPlaces.isOverpass(data) {
        _ = try? OSMPlaces.loadOverpass(data, file: "fuzz.json", filters: filters)
    }
    return 0
}

@_cdecl("FuzzOSM_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzOSM(data, size) }
}
