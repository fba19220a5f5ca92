import Foundation
import Geodesy
import LocationSimulation
import Proximity
import Traces

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
func path(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

/// The bundled coffee houses (Liverpool group) and lecture theatres.
func bundledPlaces() throws -> (coffee: [Place], theatres: [Place]) {
    let plist = try PlaceSet.load(path("Fixtures/CityCycleRideLocations.plist"))
    let theatres = try PlaceSet.load(path("Fixtures/lecture-theatres.json"))
    return (plist.places(inGroups: ["liverpool"]), theatres.places)
}

/// Replays a walk with Stroll's defaults and ranks both groups on every delivered fix.
func rankWalk(_ name: String) throws -> (delivered: [Location], coffee: [RankingUpdate], theatres: [RankingUpdate]) {
    let trace = try TraceReader.read(path("traces/\(name).gpx"))
    var simulator = try LocationSimulator(trace: trace)
    let (coffee, theatres) = try bundledPlaces()
    var coffeeEngine = ProximityEngine(places: coffee)
    var theatreEngine = ProximityEngine(places: theatres)
    var delivered: [Location] = []
    var c: [RankingUpdate] = [], t: [RankingUpdate] = []
    while let event = simulator.next() {
        guard case .location(let l) = event else { continue }
        delivered.append(l)
        c.append(coffeeEngine.update(from: l.coordinate))
        t.append(theatreEngine.update(from: l.coordinate))
    }
    return (delivered, c, t)
}

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo..<hi, using: &self) }
}
