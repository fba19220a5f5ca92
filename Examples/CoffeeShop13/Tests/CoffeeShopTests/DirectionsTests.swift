import CoffeeShop
import CoreLocation
import Foundation
import MapKit
import StrollSimulation
import Testing

@Suite("CoffeeShop13's directions to the nearest coffee house, on Monaco's streets", .serialized)
@MainActor
struct DirectionsTests {
    /// The OpenStreetMap extract MapKit's search and directions answer from, offline.
    static let extract = root.appendingPathComponent("Fixtures/osm/monaco-latest.osm.pbf").path

    @Test("at the end of a walk from the casino, the nearest coffee is Le Corner: a walking route of the network's shortest length, heading off first")
    func directionsToNearest() async throws {
        try MKDirections.useStreets(from: Self.extract)
        SimulatedDevice.current = try SimulatedDevice(trace: root.appendingPathComponent("Examples/CoffeeShop13/walks/casino-to-place-d-armes.gpx").path)
        defer { SimulatedDevice.current = nil }
        let phone = Counter(filter: kCLDistanceFilterNone)
        await SimulatedDevice.current?.run()
        let here = try #require(phone.fixes.last)
        let directions = CoffeeDirections()
        let route = try await directions.toNearestCoffee(from: here)
        #expect(directions.destination?.name == "Le Corner")
        // The walk ends on OpenStreetMap node 6458511951; `stroll route 43.7320882,7.4198562 43.7325951,7.4201804
        // --osm Fixtures/osm/monaco-latest.osm.pbf --json` gives this length (`make test-route` holds stroll route's
        // lengths to networkx's shortest paths over the same extract), 2.6 times the 60 m as the crow flies:
        // down Rampe Major and along the harbour's footpaths.
        #expect(abs(route.distance - 156.6991237747665) < 1e-6, "\(route.distance) m")
        let crowFlies = here.distance(from: CLLocation(latitude: 43.7325951, longitude: 7.4201804))
        #expect(route.distance > crowFlies)
        #expect(abs(route.expectedTravelTime - route.distance / 1.4) < 1e-6)
        // MapKit's first step is where the route starts (no instructions, no distance); then the first turn.
        #expect(route.steps.first?.instructions == "" && route.steps.first?.distance == 0)
        let first = try #require(route.steps.dropFirst().first)
        #expect(first.instructions == "Head east on the path")
        #expect(abs(first.distance - 18.23324853990677) < 1e-6)
        #expect(route.steps.last?.instructions == "Arrive at the destination")
        #expect(abs(route.steps.reduce(0) { $0 + $1.distance } - route.distance) < 1e-6)
    }
}
