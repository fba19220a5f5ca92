import TestSupport
import Foundation
import Geodesy
import LocationSimulation
import Proximity
import Traces


/// The bundled coffee houses (Liverpool group) and lecture theatres.
func bundledPlaces() throws -> (coffee: [Place], theatres: [Place]) {
    let plist = try PlaceSet.load(path("Fixtures/CityCycleRideLocations.plist"))
    let theatres = try PlaceSet.load(path("Fixtures/lecture-theatres.json"))
    return (try plist.places(inGroups: ["liverpool"]), theatres.places)
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

