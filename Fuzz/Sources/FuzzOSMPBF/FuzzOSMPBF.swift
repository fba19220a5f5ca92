import Foundation
import FuzzDriver
import PlacesOSM

/// Any bytes as an OpenStreetMap PBF (the reader streams from a file, so each
/// input is written to one first): places or an OSMError, never a crash, a
/// hang or unbounded memory; every place read has a valid coordinate and an
/// id of the form TYPE/ID.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOSMPBF(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    fuzzOSMFile(Data(bytes: start, count: count), extension: ".osm.pbf")
    return 0
}

/// Writes `data` as a file of that extension and reads it.
func fuzzOSMFile(_ data: Data, extension ext: String) {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-fuzz-osm-\(getpid())\(ext)").path
    guard FileManager.default.createFile(atPath: path, contents: data) else { fatalError("cannot write \(path)") }
    defer { try? FileManager.default.removeItem(atPath: path) }
    guard let set = try? OSMPlaces.load(path, filters: [OSMFilter(key: "amenity"), OSMFilter(key: "shop")]) else { return }
    for p in set.places {
        let c = p.coordinate
        if !(abs(c.latitude) <= 90 && abs(c.longitude) <= 180) { fatalError("a place outside the world: \(p)") }
        if !(p.id.hasPrefix("node/") || p.id.hasPrefix("way/") || p.id.hasPrefix("relation/")) { fatalError("an id not TYPE/ID: \(p.id)") }
    }
}

@_cdecl("FuzzOSMPBF_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz(argc, argv) { data, size in fuzzOSMPBF(data, size) }
}
