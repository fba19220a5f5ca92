import Foundation
import Geodesy
import Testing
import TestSupport
import Traces
@testable import LocationSimulation

/// The stay-point rule of ``VisitDetector`` on fixes made here: a walk in,
/// a stay, a walk out, one fix a second.
@Suite("Visits: the stay-point rule")
struct VisitTests {
    static let origin = Coordinate(computedLatitude: 53.4020, longitude: -2.9800)
    static let t0 = 1_714_554_000.0

    /// A fix `metres` east and `north` metres north of the origin, `seconds` after t0.
    static func fix(east metres: Double, north: Double = 0, at seconds: Double) -> Location {
        let east = Geodesic.wgs84.direct(from: origin, azimuth: 90, distance: metres).coordinate
        let c = north == 0 ? east : Geodesic.wgs84.direct(from: east, azimuth: 0, distance: north).coordinate
        return Location(coordinate: c, horizontalAccuracy: 5, timestamp: t0 + seconds)
    }

    /// 21 s driving in at 12 m/s, `stay` seconds wandering within 8 m of one
    /// spot, then 30 s driving out at 10 m/s; one fix a second. On the way in
    /// the run restarts at the first fix 100 m or more from the last start,
    /// the last time 34 m before the spot (3 s before the stay), and the way
    /// out leaves it 7 s after the stay: the run is the stay and 10 s.
    static func walk(stay: Double, walkOut: Bool = true) -> [Location] {
        var fixes: [Location] = []
        var t = 0.0
        let spot = 300.0
        for k in 0..<21 { fixes.append(fix(east: spot - 250 + 12 * Double(k), at: t)); t += 1 }
        for k in 0..<Int(stay) { fixes.append(fix(east: spot + 8 * sin(Double(k) / 40), north: 8 * cos(Double(k) / 30), at: t)); t += 1 }
        if walkOut { for k in 1...30 { fixes.append(fix(east: spot + 10 * Double(k), at: t)); t += 1 } }
        return fixes
    }

    static func detect(_ fixes: [Location], settings: VisitSettings = VisitSettings()) -> [(visit: Visit, at: Double)] {
        var detector = VisitDetector(settings: settings)
        return fixes.flatMap { f in detector.add(f).map { ($0, f.timestamp) } }
    }

    @Test("a 6-minute stay within 20 m: one arrival when the run reaches 5 minutes, one departure at the first fix 100 m or more from the run's first")
    func sixMinutes() throws {
        let fixes = Self.walk(stay: 360)
        let visits = Self.detect(fixes)
        try #require(visits.count == 2)
        let (arrival, arrivedAt) = visits[0], (departure, departedAt) = visits[1]
        #expect(arrival.departure == nil && departure.departure == departedAt)
        #expect(arrival.arrival == departure.arrival)
        // The run starts on the way in, 3 s before the stay.
        let first = try #require(fixes.first { $0.timestamp == arrival.arrival })
        #expect(arrival.arrival == Self.t0 + 18)
        #expect(arrivedAt - arrival.arrival >= 300 && arrivedAt - arrival.arrival < 301)
        let leaving = try #require(fixes.first { $0.timestamp == departedAt })
        #expect(leaving.distance(from: first) >= 100)
        let members = fixes.filter { $0.timestamp >= arrival.arrival && $0.timestamp < departedAt }
        #expect(members.allSatisfy { $0.distance(from: first) < 100 })
        #expect(departure.fixes == members.count)
        // The centre: the members' mean.
        let mean = Coordinate(computedLatitude: members.map(\.coordinate.latitude).reduce(0, +) / Double(members.count),
                              longitude: members.map(\.coordinate.longitude).reduce(0, +) / Double(members.count))
        #expect(Geodesic.wgs84.distance(mean, departure.coordinate) < 1e-6)
        #expect(departure.horizontalAccuracy == members.map { Geodesic.wgs84.distance(departure.coordinate, $0.coordinate) }.max())
        #expect(departure.horizontalAccuracy < 100)
    }

    @Test("a 4-minute stay gives no visit")
    func fourMinutes() {
        #expect(Self.detect(Self.walk(stay: 240)).isEmpty)
    }

    @Test("a stay still open when the fixes end: its arrival only")
    func stillThere() throws {
        let visits = Self.detect(Self.walk(stay: 600, walkOut: false))
        try #require(visits.count == 1)
        #expect(visits[0].visit.departure == nil)
    }

    @Test("a run that reaches 5 minutes only at the fix that leaves it: arrival and departure at that fix")
    func qualifiesOnLeaving() throws {
        // Fixes every 70 s within 20 m, then one 200 m away at 350 s: the run's last fix inside is at 280 s.
        let fixes = (0...4).map { Self.fix(east: 5 * Double($0), at: 70 * Double($0)) } + [Self.fix(east: 200, at: 350)]
        let visits = Self.detect(fixes)
        try #require(visits.count == 2)
        #expect(visits.allSatisfy { $0.at == Self.t0 + 350 })
        #expect(visits[0].visit.departure == nil && visits[1].visit.departure == Self.t0 + 350)
        #expect(visits[1].visit.fixes == 5)
    }

    @Test("a gap of more than 15 minutes: an announced stay departs at the last fix before it, and the run starts again")
    func gap() throws {
        var fixes = (0...400).map { Self.fix(east: 0, at: Double($0)) }
        fixes += (0...100).map { Self.fix(east: 0, at: 400 + 901 + Double($0)) }
        let visits = Self.detect(fixes)
        try #require(visits.count == 2)
        #expect(visits[1].visit.departure == Self.t0 + 400)
        #expect(visits[1].at == Self.t0 + 1301)
        // Not announced before the gap: nothing.
        #expect(Self.detect(Array(fixes[0..<200]) + Array(fixes[401...])).isEmpty)
    }

    @Test("the thresholds are the settings': 50 m and 2 minutes find the stay a 100 m, 10-minute rule misses")
    func thresholds() {
        let fixes = Self.walk(stay: 180)
        #expect(Self.detect(fixes, settings: VisitSettings(radius: 100, minimumDuration: 600)).isEmpty)
        #expect(Self.detect(fixes, settings: VisitSettings(radius: 50, minimumDuration: 120)).count == 2)
    }

    @Test("across the antimeridian the centre's longitude is the circular mean, not 0")
    func antimeridian() throws {
        let a = Location(coordinate: Coordinate(computedLatitude: 0, longitude: 179.9999), horizontalAccuracy: 5, timestamp: 0)
        let b = Location(coordinate: Coordinate(computedLatitude: 0, longitude: -179.9999), horizontalAccuracy: 5, timestamp: 400)
        var detector = VisitDetector()
        _ = detector.add(a)
        let visit = try #require(detector.add(b).first)
        #expect(abs(abs(visit.coordinate.longitude) - 180) < 1e-9)
    }
}
