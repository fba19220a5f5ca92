import Geodesy
import Testing
import TestSupport
import Traces
@testable import LocationSimulation

@Suite("Distance filter and delivery, on bundled walks and real traces")
struct DistanceFilterTests {
    @Test("delivered fixes are at least 25 m apart, held-back ones under 25 m from the last delivered, the first is delivered",
          arguments: bundledWalks + realTraces)
    func filterInvariant(file: String) throws {
        let events = try replay(file)
        var last: Location?
        var sawFirst = false
        for event in events {
            switch event {
            case .location(let l):
                if let last {
                    // Independent check: Karney's inverse, not the simulator's chord formula.
                    #expect(Geodesic.wgs84.distance(last.coordinate, l.coordinate) >= 25, "\(file) at \(l.timestamp)")
                }
                sawFirst = true
                last = l
            case .filtered(let l, let reason, let distance):
                #expect(sawFirst, "a fix was filtered before any was delivered")
                #expect(reason == .distanceFilter)
                let d = Geodesic.wgs84.distance(try #require(last).coordinate, l.coordinate)
                #expect(d < 25)
                #expect(abs(d - distance) < 1e-6)
            default:
                break
            }
        }
        #expect(sawFirst)
        if case .location = events.first {} else { Issue.record("\(file): the first event is not a delivered location") }
    }

    @Test("every recorded fix comes out at its own time, in order, delivered or filtered", arguments: bundledWalks + realTraces)
    func recordedTimes(file: String) throws {
        let trace = try TraceReader.read(path(file))
        let recorded = trace.replaySegments.flatMap(\.fixes)
        let events = try replay(file)
        let out = events.compactMap { event -> Location? in
            switch event {
            case .location(let l), .filtered(let l, _, _): return l.sourceLine == nil ? nil : l
            default: return nil
            }
        }
        #expect(out.count == recorded.count)
        for (fix, location) in zip(recorded, out) where fix.time != nil {
            #expect(location.timestamp == fix.time, "line \(fix.line)")
            #expect(location.sourceLine == fix.line)
        }
        let times = events.map(\.timestamp)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "events are in time order")
    }

    @Test("interpolation fills 1 Hz between recorded fixes and never crosses a segment break")
    func interpolation() throws {
        let trace = try TraceReader.read(path("Fixtures/real-traces/togeojson/Friday-Evening-Run.gpx"))
        var settings = LocationSettings()
        settings.distanceFilter = distanceFilterNone
        var simulator = try LocationSimulator(trace: trace, settings: settings)
        let locations = simulator.run().compactMap { if case .location(let l) = $0 { return l } else { return nil } }
        let segments = trace.tracks[0].segments
        for (a, b) in zip(segments, segments.dropFirst()) {
            let end = try #require(a.fixes.last?.time), start = try #require(b.fixes.first?.time)
            #expect(!locations.contains { $0.sourceLine == nil && $0.timestamp > end && $0.timestamp < start }, "no fix between segments")
        }
        // Inside a segment, interpolated fixes come one second apart after a recorded one.
        let first = segments[0].fixes
        let t0 = try #require(first[0].time), t1 = try #require(first[1].time)
        let between = locations.filter { $0.timestamp > t0 && $0.timestamp < t1 }.map(\.timestamp)
        #expect(between == Array(stride(from: t0 + 1, to: t1 - 1e-9, by: 1)))
        #expect(between.allSatisfy { t in locations.first { $0.timestamp == t }?.sourceLine == nil })
    }

    @Test("distance filter none delivers everything; a denied authorization delivers nothing but an error")
    func noneAndDenied() throws {
        var settings = LocationSettings()
        settings.distanceFilter = distanceFilterNone
        let all = try replay("traces/lime-street-to-campus.gpx", settings: settings)
        #expect(!all.contains { if case .filtered = $0 { return true } else { return false } })
        settings.authorization = .denied
        let denied = try replay("traces/lime-street-to-campus.gpx", settings: settings)
        #expect(denied.count == 1)
        guard case .error(let error, _) = denied.first else {
            Issue.record("no error")
            return
        }
        #expect(error.code == .denied)
    }

    @Test("an accuracy gate holds back inaccurate fixes with reason accuracy")
    func accuracyGate() throws {
        var settings = LocationSettings()
        settings.accuracyGate = 20
        let events = try replay("traces/bold-street-long-stop.gpx", settings: settings)
        let gated = events.compactMap { e -> Location? in if case .filtered(let l, .accuracy, _) = e { return l } else { return nil } }
        #expect(gated.count >= 1)
        #expect(gated.allSatisfy { $0.horizontalAccuracy > 20 })
        #expect(!events.contains { if case .location(let l) = $0 { return l.horizontalAccuracy > 20 } else { return false } })
    }

    @Test("a trace with no usable fix is an error event, not a crash")
    func emptyTrace() throws {
        let events = try replay("Fixtures/real-traces/togeojson/bad.gpx")
        #expect(events.count == 1)
        if case .error(let e, _) = events.first { #expect(e.code == .badInput) } else { Issue.record("no error event") }
    }
}
