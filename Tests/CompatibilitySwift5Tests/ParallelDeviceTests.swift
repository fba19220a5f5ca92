// Twenty tests, each on a walk of its own, written as the README shows:
// `SimulatedDevice.current = …`, the app's usual ObservableObject location
// model, a real await, then the walk. Swift Testing runs them in parallel;
// each must see its own walk's fixes and no other's. Then the same with the
// scoped forms: the `.simulatedDevice(replaying:)` trait and
// `withSimulatedDevice`. (`make test-parallel-devices` runs them 50 times.)
import CoreLocation
import Foundation
import Geodesy
import StrollSimulation
import Testing
import TestSupport
import Traces

/// The twenty walks, one per test.
let parallelWalks = [
    "traces/bold-street-long-stop.gpx",
    "traces/campus-loop.gpx",
    "traces/lime-street-to-campus.gpx",
    "traces/pier-head-to-guild.gpx",
    "Fixtures/real-traces/gpxpy/cerknicko-without-times.gpx",
    "Fixtures/real-traces/gpxpy/korita-zbevnica.gpx",
    "Fixtures/real-traces/gpxpy/route.gpx",
    "Fixtures/real-traces/gpxpy/track-with-empty-segment.gpx",
    "Fixtures/real-traces/togeojson/Friday-Evening-Run.gpx",
    "Fixtures/real-traces/togeojson/apple_watch_route.gpx",
    "Fixtures/real-traces/togeojson/garmin_connect.tcx",
    "Fixtures/real-traces/togeojson/gxtrack.kml",
    "Fixtures/real-traces/togeojson/linestring.kml",
    "Fixtures/real-traces/togeojson/multigeometry.kml",
    "Fixtures/real-traces/togeojson/sample.tcx",
    "Fixtures/real-traces/togeojson/timespan.kml",
    "Fixtures/real-traces/togeojson/trek.gpx",
    "Fixtures/real-traces/togeojson/wpt.gpx",
    "Fixtures/real-traces/trackintel/google_trajectory.csv",
    "Fixtures/real-traces/trackintel/posmo_trajectory.csv",
]

/// The usual model of an app: an ObservableObject that is the manager's delegate.
class WalkModel: NSObject, ObservableObject, CLLocationManagerDelegate {
    private let manager = CLLocationManager()
    @Published var location: CLLocation?
    @Published var locations: [CLLocation] = []

    override init() {
        super.init()
        manager.delegate = self
        manager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        manager.distanceFilter = 25
        manager.requestWhenInUseAuthorization()
        manager.startUpdatingLocation()
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        location = locations.last
        self.locations += locations
    }
}

/// What a walk's model must have seen: fixes, every one within 200 m of the
/// walk's own points (another walk's are kilometres away, most in other
/// countries), the last within 200 m of the walk's end.
@MainActor
func expectOwnWalk(_ model: WalkModel, _ walk: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let trace = try TraceReader.read(path(walk))
    let points = trace.replaySegments.flatMap(\.fixes).map(\.coordinate)
    let end = try #require(points.last, sourceLocation: sourceLocation)
    guard let last = model.location else {
        Issue.record("\(walk): no location delivered", sourceLocation: sourceLocation)
        return
    }
    #expect(!model.locations.isEmpty, sourceLocation: sourceLocation)
    let box = points.reduce((minLat: 90.0, maxLat: -90.0, minLon: 180.0, maxLon: -180.0)) {
        (min($0.minLat, $1.latitude), max($0.maxLat, $1.latitude), min($0.minLon, $1.longitude), max($0.maxLon, $1.longitude))
    }
    let margin = 0.002  // about 200 m
    let foreign = model.locations.filter {
        let c = $0.coordinate
        return c.latitude < box.minLat - margin || c.latitude > box.maxLat + margin || c.longitude < box.minLon - margin || c.longitude > box.maxLon + margin
    }
    #expect(foreign.isEmpty, "\(walk): \(foreign.count) fixes from outside this walk", sourceLocation: sourceLocation)
    let lastPoint = try Coordinate(latitude: last.coordinate.latitude, longitude: last.coordinate.longitude)
    #expect(Geodesic.wgs84.distance(lastPoint, end) < 200, "\(walk): the last fix is not at the walk's end", sourceLocation: sourceLocation)
}

/// The README's pattern, with a real await between making the model and the walk.
@MainActor
func documentedPattern(_ walk: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
    let model = WalkModel()
    try await Task.sleep(for: .milliseconds(2))
    await SimulatedDevice.current?.run()
    try expectOwnWalk(model, walk, sourceLocation: sourceLocation)
}

@Suite("Twenty walks in parallel, the documented pattern")
struct ParallelDocumentedPatternTests {
    @Test @MainActor func walk01() async throws { try await documentedPattern(parallelWalks[0]) }
    @Test @MainActor func walk02() async throws { try await documentedPattern(parallelWalks[1]) }
    @Test @MainActor func walk03() async throws { try await documentedPattern(parallelWalks[2]) }
    @Test @MainActor func walk04() async throws { try await documentedPattern(parallelWalks[3]) }
    @Test @MainActor func walk05() async throws { try await documentedPattern(parallelWalks[4]) }
    @Test @MainActor func walk06() async throws { try await documentedPattern(parallelWalks[5]) }
    @Test @MainActor func walk07() async throws { try await documentedPattern(parallelWalks[6]) }
    @Test @MainActor func walk08() async throws { try await documentedPattern(parallelWalks[7]) }
    @Test @MainActor func walk09() async throws { try await documentedPattern(parallelWalks[8]) }
    @Test @MainActor func walk10() async throws { try await documentedPattern(parallelWalks[9]) }
    @Test @MainActor func walk11() async throws { try await documentedPattern(parallelWalks[10]) }
    @Test @MainActor func walk12() async throws { try await documentedPattern(parallelWalks[11]) }
    @Test @MainActor func walk13() async throws { try await documentedPattern(parallelWalks[12]) }
    @Test @MainActor func walk14() async throws { try await documentedPattern(parallelWalks[13]) }
    @Test @MainActor func walk15() async throws { try await documentedPattern(parallelWalks[14]) }
    @Test @MainActor func walk16() async throws { try await documentedPattern(parallelWalks[15]) }
    @Test @MainActor func walk17() async throws { try await documentedPattern(parallelWalks[16]) }
    @Test @MainActor func walk18() async throws { try await documentedPattern(parallelWalks[17]) }
    @Test @MainActor func walk19() async throws { try await documentedPattern(parallelWalks[18]) }
    @Test @MainActor func walk20() async throws { try await documentedPattern(parallelWalks[19]) }
}

@Suite("Twenty walks in parallel, each test with the .simulatedDevice trait")
struct ParallelTraitTests {
    @Test(.simulatedDevice(replaying: path(parallelWalks[0]))) @MainActor func walk01() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[0])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[1]))) @MainActor func walk02() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[1])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[2]))) @MainActor func walk03() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[2])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[3]))) @MainActor func walk04() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[3])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[4]))) @MainActor func walk05() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[4])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[5]))) @MainActor func walk06() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[5])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[6]))) @MainActor func walk07() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[6])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[7]))) @MainActor func walk08() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[7])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[8]))) @MainActor func walk09() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[8])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[9]))) @MainActor func walk10() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[9])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[10]))) @MainActor func walk11() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[10])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[11]))) @MainActor func walk12() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[11])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[12]))) @MainActor func walk13() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[12])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[13]))) @MainActor func walk14() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[13])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[14]))) @MainActor func walk15() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[14])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[15]))) @MainActor func walk16() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[15])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[16]))) @MainActor func walk17() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[16])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[17]))) @MainActor func walk18() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[17])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[18]))) @MainActor func walk19() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[18])
    }
    @Test(.simulatedDevice(replaying: path(parallelWalks[19]))) @MainActor func walk20() async throws {
        let model = WalkModel()
        try await Task.sleep(for: .milliseconds(2))
        await SimulatedDevice.current?.run()
        try expectOwnWalk(model, parallelWalks[19])
    }
}

@Suite("Twenty walks in parallel, withSimulatedDevice")
struct ParallelScopedTests {
    @Test("withSimulatedDevice scopes the device to its block", arguments: parallelWalks)
    @MainActor func walk(_ walk: String) async throws {
        try await withSimulatedDevice(replaying: path(walk)) { device in
            let model = WalkModel()
            try await Task.sleep(for: .milliseconds(2))
            await device.run()
            try expectOwnWalk(model, walk)
        }
    }

    @Test("a trace that cannot be read inside withSimulatedDevice is an error naming the file and line")
    @MainActor func unreadable() async throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-cut-\(UUID().uuidString).gpx").path
        try Data("<gpx><trk><trkseg>\n<trkpt lat=\"53.4\" lon=\"-2.97\"></trkpt>\n<trkpt lat=".utf8).write(to: URL(fileURLWithPath: bad))
        do {
            _ = try await withSimulatedDevice(replaying: bad) { _ in Issue.record("a bad trace was replayed") }
            Issue.record("a cut trace was read")
        } catch let error as TraceError {
            #expect(error.description.hasPrefix(bad + ":3:"), "\(error.description)")
        }
    }
}
