import Foundation
import Geodesy
import Testing
import TestSupport
import Traces
@testable import LocationSimulation

@Suite("Region monitoring")
struct RegionTests {
    @Test("entry and exit happen at the fixes where the walker crosses the circle")
    func circleCrossings() throws {
        let centre = try Coordinate(latitude: 53.4050219444, longitude: -2.9668433333) // Guild of Students CityBike station
        let region = MonitoredRegion.circle("guild", center: centre, radius: 60)
        var settings = LocationSettings()
        settings.distanceFilter = distanceFilterNone
        let events = try replay("traces/campus-loop.gpx", settings: settings, regions: [region])
        var expected: [(Bool, Double)] = []
        var inside: Bool?
        for event in events {
            guard case .location(let l) = event else { continue }
            let now = Geodesic.wgs84.distance(centre, l.coordinate) <= 60
            if let was = inside, was != now { expected.append((now, l.timestamp)) }
            inside = now
        }
        let got = events.compactMap { e -> (Bool, Double)? in
            switch e {
            case .regionEntered(_, let t): return (true, t)
            case .regionExited(_, let t): return (false, t)
            default: return nil
            }
        }
        #expect(expected.count >= 4, "the loop starts at the Guild, leaves, comes back, leaves and ends there")
        #expect(got.map(\.0) == expected.map(\.0))
        #expect(got.map(\.1) == expected.map(\.1))
        // Monitoring starts inside: the initial state says so.
        #expect(events.contains(.regionState(id: "guild", inside: true, timestamp: try #require(events.first?.timestamp))))
    }

    @Test("polygon regions through GEOS: a square around Abercromby Square")
    func polygon() throws {
        let centre = try Coordinate(latitude: 53.4030580556, longitude: -2.9640461111)
        let projection = LocalProjection(origin: centre)
        let outline = [(-80.0, -80.0), (80.0, -80.0), (80.0, 80.0), (-80.0, 80.0)].map { projection.unproject(x: $0.0, y: $0.1) }
        let region = MonitoredRegion(identifier: "square", shape: .polygon(outline))
        var settings = LocationSettings()
        settings.distanceFilter = distanceFilterNone
        let events = try replay("traces/campus-loop.gpx", settings: settings, regions: [region])
        var expected: [Double] = []
        var inside: Bool?
        for event in events {
            guard case .location(let l) = event else { continue }
            let p = projection.project(l.coordinate)
            let now = abs(p.x) < 80 && abs(p.y) < 80
            if let was = inside, was != now { expected.append(l.timestamp) }
            inside = now
        }
        let got = events.compactMap { e -> Double? in
            switch e {
            case .regionEntered(_, let t), .regionExited(_, let t): return t
            default: return nil
            }
        }
        #expect(!expected.isEmpty)
        #expect(got == expected)
    }

    @Test("at most 20 regions; bad regions are refused with a reason")
    func limits() throws {
        let trace = try TraceReader.read(path("traces/campus-loop.gpx"))
        let manager = SimulatedLocationManager(trace: trace)
        let c = try Coordinate(latitude: 53.4, longitude: -2.96)
        for i in 0..<20 { try manager.startMonitoring(for: .circle("r\(i)", center: c, radius: 10)) }
        #expect(throws: RegionError.tooMany(limit: 20)) { try manager.startMonitoring(for: .circle("r20", center: c, radius: 10)) }
        #expect(throws: RegionError.self) { try LocationSimulator(trace: trace, regions: [.circle("bad", center: c, radius: -1)]) }
    }
}
