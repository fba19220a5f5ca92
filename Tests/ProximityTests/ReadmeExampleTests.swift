// The Swift quick start of README.md, kept here so that it is compiled and run.
import LocationSimulation
import Proximity
import Testing
import TestSupport
import Traces

@Test func nearestCoffeeOnTheWayToCampus() throws {
    let walk = try TraceReader.read(path("traces/lime-street-to-campus.gpx"))
    let coffee = try PlaceSet.load(path("Fixtures/CityCycleRideLocations.plist")).places(inGroups: ["liverpool"])

    var manager = try LocationSimulator(trace: walk)            // 10 m accuracy, 25 m distance filter
    var list = ProximityEngine(places: coffee)
    var nearestAt: [Double: String] = [:]
    var orderChanges = 0

    while let event = manager.next() {
        guard case .location(let fix) = event else { continue }
        let update = list.update(from: fix.coordinate)
        if update.changed { orderChanges += 1 }
        nearestAt[fix.timestamp - manager.startTime] = update.names.first
    }

    #expect(nearestAt[0] == "Leaf")                              // at Lime Street station
    #expect(nearestAt[nearestAt.keys.max()!] == "Costa Coffee")  // arriving at the Ashton Building
    #expect(orderChanges == 37)                                  // the first ranking and 36 changes
}
