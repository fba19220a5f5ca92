import Foundation
import Geodesy
import TestSupport
import Testing
import Traces
@testable import LocationSimulation

/// One fix read by a receiver standing at `here`.
private func truth(_ here: Coordinate, _ t: Double) -> TrueFix {
    TrueFix(coordinate: here, time: t, elevation: nil, horizontalAccuracy: nil, verticalAccuracy: nil, course: -1, speed: 0, line: nil)
}

private let liverpool = Coordinate(computedLatitude: 53.4055, longitude: -2.9660)

/// What a receiver in one environment said at each of `count` times `spacing` seconds apart.
private struct Readings {
    var step: [Int] = []
    var accuracy: [Double] = []
    var east: [Double] = []
    var north: [Double] = []
    var multipath: [Bool] = []
    var lost: [Int] = []
    var firstLost: [Int] = []

    init(_ options: SensorOptions, count: Int, spacing: Double, at here: Coordinate = liverpool) {
        var sensor = SensorModel(options: options, desiredAccuracy: 10)
        for k in 0..<count {
            switch sensor.read(truth(here, 1_700_000_000 + Double(k) * spacing)) {
            case .fix(let l):
                step.append(k)
                accuracy.append(l.horizontalAccuracy)
                east.append(l.appliedError?.east ?? .nan)
                north.append(l.appliedError?.north ?? .nan)
                multipath.append(l.appliedError?.multipath ?? false)
            case .outage(_, let first):
                lost.append(k)
                if first { firstLost.append(k) }
            case .dropout:
                break
            }
        }
    }
}

private func median(_ x: [Double]) -> Double {
    let s = x.sorted()
    return s.isEmpty ? .nan : s[s.count / 2]
}

@Suite("Environments: accuracy that follows conditions, drift, outages, multipath and warm-up, as docs/Receiver.md states them")
struct EnvironmentTests {
    @Test("over 100 000 fixes per preset: the error per axis has the σ its reported accuracy gives (within 2 %), autocorrelation at lag τ within 0.02 of 1/e, the 68 % circle holds 68 ± 1 %; the accuracy's median is the preset's",
          arguments: Environment.presets)
    func statistics(environment: Environment) throws {
        let preset = environment.preset
        // Fixes τ/2 apart (lag τ is 2 steps); outages skip some steps, so pairs are matched by step.
        let options = SensorOptions(noise: .gaussMarkov, seed: 7, debugTruth: true, environment: environment)
        let r = Readings(options, count: 100_000 + (preset.outages == nil ? 0 : 20_000), spacing: preset.tau / 2)
        #expect(r.step.count >= 100_000, "\(r.step.count) fixes")
        // The unit error: each fix's error over the σ of the accuracy it reported. Multipath fixes are
        // thrown off on purpose (their share is reported below), so they are left out.
        // Indexed by step (steps are dense, from 0): nil for a step lost or thrown off.
        var unit = [(Double, Double)?](repeating: nil, count: (r.step.max() ?? 0) + 3)
        var inside = 0, counted = 0
        for i in r.step.indices where !r.multipath[i] {
            let sigma = r.accuracy[i] * SensorOptions.sigmaPerRadius68
            unit[r.step[i]] = (r.east[i] / sigma, r.north[i] / sigma)
            counted += 1
            if (r.east[i] * r.east[i] + r.north[i] * r.north[i]).squareRoot() <= r.accuracy[i] { inside += 1 }
        }
        for axis in 0..<2 {
            let x = unit.compactMap { $0.map { axis == 0 ? $0.0 : $0.1 } }
            let mean = x.reduce(0, +) / Double(x.count)
            let sd = (x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(x.count - 1)).squareRoot()
            #expect(abs(sd - 1) <= 0.02, "\(environment.rawValue): unit sd \(sd)")
            var num = 0.0, den = 0.0
            for k in 0..<(unit.count - 2) {
                guard let v = unit[k], let w = unit[k + 2] else { continue }
                let a = (axis == 0 ? v.0 : v.1) - mean
                let b = (axis == 0 ? w.0 : w.1) - mean
                num += a * b
                den += a * a
            }
            #expect(abs(num / den - exp(-1)) <= 0.02, "\(environment.rawValue): autocorrelation at τ \(num / den)")
        }
        let share = Double(inside) / Double(counted)
        #expect(abs(share - 0.68) <= 0.01, "\(environment.rawValue): inside the 68 % circle \(share)")
        // The reported accuracy varies about the preset's median, log-normally.
        let m = median(r.accuracy)
        #expect(abs(m / preset.medianAccuracy - 1) <= 0.05, "\(environment.rawValue): median accuracy \(m)")
        let logs = r.accuracy.map { log($0 / preset.medianAccuracy) }
        let spread = (logs.reduce(0) { $0 + $1 * $1 } / Double(logs.count)).squareRoot()
        #expect(abs(spread - preset.spread) <= 0.02, "\(environment.rawValue): spread \(spread)")
        // Outages and multipath come as often as the preset says (mean gap and length in seconds, steps τ/2 apart).
        let seconds = Double(r.step.count + r.lost.count) * preset.tau / 2
        if let outages = preset.outages {
            let lostShare = Double(r.lost.count) / Double(r.step.count + r.lost.count)
            let expected = outages.meanLength / (outages.meanGap + outages.meanLength)
            #expect(abs(lostShare / expected - 1) <= 0.15, "\(environment.rawValue): share lost \(lostShare), expected \(expected)")
            #expect(!r.firstLost.isEmpty && Double(r.firstLost.count) <= seconds / outages.meanGap * 1.2)
        } else {
            #expect(r.lost.isEmpty)
        }
        if let multipath = preset.multipath {
            let share = Double(r.multipath.filter { $0 }.count) / Double(r.step.count)
            let expected = multipath.meanLength / (multipath.meanGap + multipath.meanLength)
            #expect(abs(share / expected - 1) <= 0.2, "\(environment.rawValue): share in multipath \(share), expected \(expected)")
        } else {
            #expect(!r.multipath.contains(true))
        }
    }

    @Test("the same seed gives the same readings; at 1 Hz and at 10 Hz the same times give the same accuracy, error and outages", arguments: [Environment.urban, .urbanCanyon])
    func rateIndependent(environment: Environment) {
        let options = SensorOptions(noise: .gaussMarkov, seed: 21, debugTruth: true, environment: environment, warmUp: .ios)
        var slow = SensorModel(options: options, desiredAccuracy: 10)
        var fast = SensorModel(options: options, desiredAccuracy: 10)
        var compared = 0, lost = 0
        for k in 0..<3_600 {
            let t = 1_700_000_000 + Double(k)
            let a = slow.read(truth(liverpool, t))
            var b = fast.read(truth(liverpool, t))
            for j in 1..<10 { _ = fast.read(truth(liverpool, t + Double(j) / 10)) }
            // The fast receiver's first loss of an outage may fall between whole seconds.
            if case .outage(let e, _) = b { b = .outage(e, first: false) }
            switch (a, b) {
            case (.fix(let x), .fix(let y)):
                #expect(x.horizontalAccuracy == y.horizontalAccuracy && x.appliedError == y.appliedError, "at \(k) s")
                compared += 1
            case (.outage, .outage):
                lost += 1
            default:
                Issue.record("at \(k) s: \(a) at 1 Hz, \(b) at 10 Hz")
            }
        }
        #expect(compared > 3_000)
        #expect(lost > 0, "an hour in \(environment.rawValue) loses the signal at least once")
        let again = Readings(options, count: 2_000, spacing: 1), first = Readings(options, count: 2_000, spacing: 1)
        #expect(again.east == first.east && again.accuracy == first.accuracy && again.lost == first.lost)
        var other = options
        other.seed = 22
        #expect(Readings(other, count: 2_000, spacing: 1).east != first.east)
    }

    @Test("warm-up as iOS shows it: 1414 m, then 65 m, then better each second down to the environment's; after an outage 65 m again; none turns it off")
    func warmUp() throws {
        let options = SensorOptions(noise: .gaussMarkov, seed: 3, debugTruth: true, environment: .indoor, warmUp: .ios)
        let r = Readings(options, count: 7_200, spacing: 1)
        try #require(r.step.first == 0)
        #expect(Array(r.accuracy.prefix(3)) == [1414, 1414, 1414])
        // Then a Wi-Fi fix's 65 m (or the environment's, when that is worse), and better from 6 s on.
        #expect(r.accuracy[3..<6].allSatisfy { $0 >= 65 && $0 < 300 }, "\(r.accuracy[3..<6])")
        // Every fix's error follows what it reports: a 1414 m fix lies hundreds of metres off.
        #expect((r.east[0] * r.east[0] + r.north[0] * r.north[0]).squareRoot() > 100 || abs(r.east[1]) > 100 || abs(r.east[2]) > 100)
        // After each outage the first fixes say 65 m at least.
        try #require(!r.firstLost.isEmpty)
        var checked = 0
        for i in r.step.indices.dropFirst() where r.step[i - 1] != r.step[i] - 1 {
            #expect(r.accuracy[i] >= 65, "first fix after an outage at \(r.step[i]) s: \(r.accuracy[i]) m")
            checked += 1
        }
        #expect(checked == r.firstLost.count || checked == r.firstLost.count - 1)
        let off = Readings(SensorOptions(noise: .gaussMarkov, seed: 3, debugTruth: true, environment: .indoor, warmUp: .none), count: 10, spacing: 1)
        #expect(off.accuracy[0] < 200 && off.accuracy[0] == off.accuracy[0].rounded(toPlaces: 1))
        // Without an environment the warm-up lies over the trace's own accuracy, and ends at it.
        let plain = Readings(SensorOptions(noise: .gaussian, seed: 3, debugTruth: true, warmUp: .ios), count: 30, spacing: 1)
        #expect(plain.accuracy[0] == 1414 && plain.accuracy[4] == 65 && plain.accuracy[29] == 10)
        #expect(zip(plain.accuracy.dropFirst(6), plain.accuracy.dropFirst(7)).allSatisfy { $0 >= $1 }, "better each second: \(plain.accuracy)")
    }

    @Test("--noise none with an environment: no fix moves (multipath neither), while the accuracies, outages and warm-up are reported")
    func noiseNone() {
        let r = Readings(SensorOptions(noise: .none, seed: 5, debugTruth: true, environment: .urbanCanyon, warmUp: .ios), count: 3_600, spacing: 1)
        #expect(r.east.allSatisfy { $0 == 0 } && r.north.allSatisfy { $0 == 0 } && !r.multipath.contains(true))
        #expect(r.accuracy.first == 1414 && Set(r.accuracy).count > 50 && !r.firstLost.isEmpty)
    }

    @Test("the distance filter and the accuracy gate see warm-up, outages and multipath exactly as clean fixes")
    func filtersApply() throws {
        let walk = straightWalk(from: liverpool, azimuth: 60, step: 7, count: 400, interval: 5)
        let sensor = SensorOptions(noise: .gaussMarkov, seed: 9, environment: .urbanCanyon, warmUp: .ios)
        var none = LocationSettings()
        none.distanceFilter = distanceFilterNone
        var all = try LocationSimulator(trace: walk, settings: none, sensor: sensor)
        let every = all.run()
        var filtered = try LocationSimulator(trace: walk, settings: LocationSettings(), sensor: sensor)
        let events = filtered.run()
        // The filter run's deliveries are exactly the fixes a 25 m filter keeps from the unfiltered run.
        var kept: [Location] = []
        for case .location(let l) in every where kept.last.map({ Geodesic.wgs84.distance($0.coordinate, l.coordinate) >= 25 }) ?? true { kept.append(l) }
        let delivered = events.compactMap { if case .location(let l) = $0 { return l } else { return nil } }
        #expect(delivered == kept)
        #expect(filtered.counts.outages > 0 && filtered.counts.outages == all.counts.outages)
        let errors = events.filter { if case .error(let e, _) = $0 { return e.code == .locationUnknown } else { return false } }
        #expect(errors.count == filtered.counts.outages)
        #expect(filtered.counts.generated == filtered.counts.delivered + filtered.counts.filteredTotal + filtered.counts.outageFixes)
        // An accuracy gate at 50 m holds back every warm-up fix that says worse.
        var gated = LocationSettings()
        gated.accuracyGate = 50
        gated.distanceFilter = distanceFilterNone
        var g = try LocationSimulator(trace: walk, settings: gated, sensor: sensor)
        let gatedEvents = g.run()
        #expect(gatedEvents.allSatisfy { if case .location(let l) = $0 { return l.horizontalAccuracy <= 50 } else { return true } })
        #expect((g.counts.filtered[.accuracy] ?? 0) >= 6)
    }

    @Test("areas from a GeoJSON file: a tunnel loses every fix inside it and says so once; overlapping areas: the most degraded wins")
    func areas() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-environments-\(UUID().uuidString).geojson")
        defer { try? FileManager.default.removeItem(at: file) }
        // A walk east along a parallel; an urban block over its middle and a tunnel inside the block.
        func box(_ w: Double, _ e: Double, _ s: Double, _ n: Double) -> String { "[[[\(w),\(s)],[\(e),\(s)],[\(e),\(n)],[\(w),\(n)],[\(w),\(s)]]]" }
        let json = """
        {"type":"FeatureCollection","features":[
          {"type":"Feature","properties":{"environment":"urban","name":"block"},"geometry":{"type":"Polygon","coordinates":\(box(-2.965, -2.955, 53.40, 53.41))}},
          {"type":"Feature","properties":{"environment":"tunnel","name":"tunnel"},"geometry":{"type":"MultiPolygon","coordinates":[\(box(-2.961, -2.959, 53.40, 53.41))]}}
        ]}
        """
        try Data(json.utf8).write(to: file)
        let areas = try EnvironmentArea.loadGeoJSON(file.path)
        #expect(areas.map(\.environment) == [.urban, .tunnel])
        let sensor = SensorModel(options: SensorOptions(noise: .gaussMarkov, environments: areas), desiredAccuracy: 10)
        #expect(sensor.environment(at: try Coordinate(latitude: 53.405, longitude: -2.970)) == .openSky)
        #expect(sensor.environment(at: try Coordinate(latitude: 53.405, longitude: -2.963)) == .urban)
        #expect(sensor.environment(at: try Coordinate(latitude: 53.405, longitude: -2.960)) == .tunnel)
        let outsideIndoor = SensorModel(options: SensorOptions(noise: .gaussMarkov, environment: .indoor, environments: areas), desiredAccuracy: 10)
        #expect(outsideIndoor.environment(at: try Coordinate(latitude: 53.405, longitude: -2.970)) == .indoor)
        #expect(outsideIndoor.environment(at: try Coordinate(latitude: 53.405, longitude: -2.963)) == .urban)

        let start = try Coordinate(latitude: 53.405, longitude: -2.968)
        let walk = straightWalk(from: start, azimuth: 90, step: 1.4, count: 600, interval: 1)
        var none = LocationSettings()
        none.distanceFilter = distanceFilterNone
        var simulator = try LocationSimulator(trace: walk, settings: none,
                                              sensor: SensorOptions(noise: .gaussMarkov, seed: 4, environments: areas, warmUp: .ios))
        let events = simulator.run()
        let errors = events.filter { if case .error(let e, _) = $0 { return e.message.contains("tunnel") } else { return false } }
        #expect(errors.count == 1)
        // About 133 m of tunnel at 1.4 m/s: some 95 fixes lost (and any the urban block loses besides).
        #expect((90...115).contains(simulator.counts.outageFixes), "\(simulator.counts.outageFixes) fixes lost")
        // The first fix out of the tunnel says 65 m (warm-up after an outage).
        let delivered = events.compactMap { if case .location(let l) = $0 { return l } else { return nil } }
        // Nothing is delivered inside the tunnel; the first fix out of it says 65 m (warm-up after an outage).
        let lostAt = try #require(errorTime(errors[0]))
        let firstOut = try #require(delivered.first { $0.timestamp > lostAt })
        #expect(firstOut.horizontalAccuracy >= 65)
    }

    @Test("bad environment files: not GeoJSON, no polygons, a feature with no or an unknown environment, a point: each refused with its reason")
    func badFiles() throws {
        let dir = FileManager.default.temporaryDirectory
        let square = "[[[-2.97,53.40],[-2.96,53.40],[-2.96,53.41],[-2.97,53.40]]]"
        let cases: [(String, String)] = [
            ("not json at all", "not GeoJSON"),
            ("{\"type\":\"FeatureCollection\",\"features\":[]}", "holds no polygons"),
            ("{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":\(square)}}", "feature 0: no environment property"),
            ("{\"type\":\"Feature\",\"properties\":{\"environment\":\"forest\"},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":\(square)}}", "feature 0: unknown environment \"forest\""),
            ("{\"type\":\"Feature\",\"properties\":{\"environment\":\"urban\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-2.9,53.4]}}", "only Polygon and MultiPolygon"),
            ("{\"type\":\"Feature\",\"properties\":{\"environment\":\"urban\"},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[-2.97,53.40],[-2.96,95],[-2.96,53.41],[-2.97,53.40]]]}}", "feature 0:"),
        ]
        for (text, reason) in cases {
            let file = dir.appendingPathComponent("stroll-bad-env-\(UUID().uuidString).geojson")
            try Data(text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(throws: EnvironmentFileError.self) { try EnvironmentArea.loadGeoJSON(file.path) }
            do {
                _ = try EnvironmentArea.loadGeoJSON(file.path)
            } catch {
                #expect(error.description.contains(reason) && error.description.hasPrefix(file.path) && !error.unreadable, "\(error.description)")
            }
        }
        do {
            _ = try EnvironmentArea.loadGeoJSON("/nonexistent/areas.geojson")
            Issue.record("a missing file was read")
        } catch {
            #expect(error.unreadable)
        }
    }

    @Test("standing still for 10 minutes behind a 25 m filter: Stroll delivers as many fixes as an independent numpy simulation of docs/Receiver.md expects",
          arguments: [(Environment.openSky, SensorOptions.Noise.gaussian), (.openSky, .gaussMarkov), (.urban, .gaussian), (.urban, .gaussMarkov)])
    func standstill(environment: Environment, noise: SensorOptions.Noise) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path("Tests/LocationSimulationTests/Reference/standstill.json")))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = try #require(root["cases"] as? [[String: Any]])
        let reference = try #require(cases.first { $0["environment"] as? String == environment.rawValue && $0["noise"] as? String == noise.rawValue })
        let expectedMean = try #require(reference["delivered_mean"] as? Double)
        let expectedSE = try #require(reference["delivered_se"] as? Double)
        let walk = straightWalk(from: liverpool, azimuth: 0, step: 0, count: 2, interval: 600)
        let runs = 300
        var delivered: [Double] = []
        for seed in 0..<runs {
            var s = try LocationSimulator(trace: walk, settings: LocationSettings(),
                                          sensor: SensorOptions(noise: noise, seed: UInt64(seed), environment: environment, warmUp: .none))
            _ = s.run()
            #expect(s.counts.generated == 601)
            delivered.append(Double(s.counts.delivered))
        }
        let mean = delivered.reduce(0, +) / Double(runs)
        // The standard error of Stroll's mean, from the reference's spread of one run (20 000 runs estimate it
        // better than 300 do, and a rare event that did not happen in 300 runs would make the sample's zero).
        let se = try #require(reference["delivered_sd"] as? Double) / Double(runs).squareRoot()
        let bound = 4 * (se * se + expectedSE * expectedSE).squareRoot()
        print("standstill \(environment.rawValue) \(noise.rawValue): Stroll \(mean) ± \(se) delivered of 601 over \(runs) seeds; numpy \(expectedMean) ± \(expectedSE)")
        #expect(abs(mean - expectedMean) <= bound, "Stroll \(mean) ± \(se), numpy \(expectedMean) ± \(expectedSE)")
    }
}

private func errorTime(_ event: LocationEvent) -> Double? {
    if case .error(_, let t) = event { return t }
    return nil
}

private extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let f = pow(10, Double(places))
        return (self * f).rounded() / f
    }
}

