import Foundation
import FuzzDriver
import PlacesOSM

/// Any bytes as OSM XML (streamed from a file, so each input is written to
/// one first) and, when they look like one, as an Overpass JSON answer:
/// places or an error, never a crash, a hang or unbounded memory; every place
/// read has a valid coordinate and an id of the form TYPE/ID.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOSMXML(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let filters = [OSMFilter(key: "amenity"), OSMFilter(key: "shop")]
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-fuzz-osmxml-\(getpid()).osm").path
    guard FileManager.default.createFile(atPath: path, contents: data) else { fatalError("cannot write \(path)") }
    defer { try? FileManager.default.removeItem(atPath: path) }
    var places = (try? OSMPlaces.load(path, filters: filters))?.places ?? []
    if OSMPlaces.isOverpass(data), let set = try? OSMPlaces.loadOverpass(data, file: "fuzz.json", filters: filters) { places += set.places }
    for p in places {
        let c = p.coordinate
        if !(abs(c.latitude) <= 90 && abs(c.longitude) <= 180) { fatalError("a place outside the world: \(p)") }
        if !(p.id.hasPrefix("node/") || p.id.hasPrefix("way/") || p.id.hasPrefix("relation/")) { fatalError("an id not TYPE/ID: \(p.id)") }
    }
    return 0
}

@_cdecl("FuzzOSMXML_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzOSMXML(data, size) }
}
