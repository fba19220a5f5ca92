// The app's tests on Linux: StrollSimulation plays the device along a walk
// from Lime Street station to the University campus (a GPX file in this
// target's resources), and StrollTesting replays the same walk through
// Stroll's own engine for an independent answer.
import CafeFinder
import CoreLocation
import Foundation
import Geodesy
import MapKit
import Proximity
import Replay
import StrollSimulation
import StrollTesting
import Testing
import Traces

/// The walk, from the test bundle.
func walk() throws -> String {
    try #require(Bundle.module.path(forResource: "lime-street-to-campus", ofType: "gpx"))
}

@Suite("CafeFinder on the walk from Lime Street station to the campus", .serialized)
@MainActor
struct CafeFinderTests {
    @Test("after the walk Costa Coffee is nearest, the list is sorted and the map is centred on the last location")
    func afterTheWalk() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: walk())
        defer { SimulatedDevice.current = nil }
        let model = CafeFinderViewModel()
        await SimulatedDevice.current?.run()

        #expect(model.locationsReceived > 20)
        #expect(model.nearest == "Costa Coffee")
        #expect(model.rows.count == model.cafes.count)
        #expect(zip(model.rows, model.rows.dropFirst()).allSatisfy { $0.metres <= $1.metres })
        // The walk ends at the Ashton Building, about 70 m from Costa Coffee.
        let costa = try #require(model.rows.first)
        #expect(costa.metres > 40 && costa.metres < 100)

        let last = try #require(model.lastLocation)
        let ashton = CLLocation(latitude: 53.406566, longitude: -2.966531)
        #expect(last.distance(from: ashton) < 30)
        #expect(model.mapView.region.center.latitude == last.coordinate.latitude)
        #expect(model.mapView.region.center.longitude == last.coordinate.longitude)
        #expect(model.mapView.annotations.count == model.cafes.count)
    }

    @Test("halfway there, after three minutes, the nearest is not yet Costa Coffee")
    func halfway() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: walk())
        defer { SimulatedDevice.current = nil }
        let model = CafeFinderViewModel()
        await SimulatedDevice.current?.advance(by: 180)
        #expect(model.locationsReceived > 0)
        #expect(model.nearest != nil && model.nearest != "Costa Coffee")
    }

    @Test("the nearest coffee house changes as Stroll's own replay of the walk says: Leaf, Cafe Time, 07 Cafe Bar, Costa Coffee")
    func agreesWithStrollsReplay() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: walk())
        defer { SimulatedDevice.current = nil }
        let startTime = try #require(SimulatedDevice.current).startTime
        let model = CafeFinderViewModel()
        var nearestChanges: [(time: Date, name: String)] = []
        model.onRowsChange = { rows in
            guard let last = model.lastLocation, let name = rows.first?.name, nearestChanges.last?.name != name else { return }
            nearestChanges.append((last.timestamp, name))
        }
        await SimulatedDevice.current?.run()

        // The same pins through Stroll's replay engine, with the same location settings (10 m, 25 m filter).
        let places = try model.cafes.enumerated().map { index, pin in
            Place(id: "cafe-\(index)", name: pin.title ?? "", coordinate: try Coordinate(latitude: pin.coordinate.latitude, longitude: pin.coordinate.longitude),
                  group: "cafes")
        }
        let replay = try Replay(trace: TraceReader.read(walk()), places: PlaceSet(places: places, groups: ["cafes"]))
        let recording = ReplayRecording(replay)
        let expected = try recording.nearestChanges(group: "cafes")

        #expect(nearestChanges.map(\.name) == ["Leaf", "Cafe Time", "07 Cafe Bar", "Costa Coffee"])
        #expect(nearestChanges.map(\.name) == expected.map(\.place.name))
        // At the same moments of the walk (seconds after its first fix).
        #expect(zip(nearestChanges, expected).allSatisfy { abs($0.time.timeIntervalSince1970 - startTime - $1.t) < 0.001 })
    }
}
