import Foundation
import Geodesy
import LocationSimulation
import Map
import Proximity
import Replay
import Testing
import TestSupport
import Traces

/// The event lines written straight into bytes are the JSON values' text,
/// byte for byte, for every kind of event the replay gives.
@Suite("Event lines written as bytes")
struct JSONLineTests {
    static func configurations() throws -> [(String, ReplayConfiguration)] {
        var plain = ReplayConfiguration()
        plain.groups = ["liverpool", "lecture-theatres"]
        var clustered = plain
        clustered.clustering = ClusterSettings(radius: 60, mapWidth: 390)
        clustered.follow = true
        var noisy = plain
        noisy.sensor = SensorOptions(noise: .gaussMarkov, seed: 7, tau: nil, debugTruth: true, environment: .urbanCanyon, environments: [],
                                     warmUp: .ios)
        noisy.regions = [.circle("pier-head", center: try Coordinate(latitude: 53.4046, longitude: -2.9958), radius: 150),
                         .circle("campus", center: try Coordinate(latitude: 53.4058, longitude: -2.9665), radius: 300)]
        noisy.within = 700
        noisy.sortMode = .name
        noisy.settings.pausesLocationUpdatesAutomatically = true
        var visiting = plain
        visiting.settings.distanceFilter = distanceFilterNone
        visiting.visits = VisitSettings()
        return [("plain", plain), ("clustered", clustered), ("noisy, regions, within, by name", noisy), ("visits, every fix", visiting)]
    }

    @Test("every event of three walks in four configurations: plain, clustered, noisy with regions, pauses, a radius and name order, and visits")
    func sameBytes() throws {
        var places = try PlaceSet.load(fixture("CityCycleRideLocations.plist"))
        places.merge(try PlaceSet.load(fixture("lecture-theatres.json")))
        var kinds: Set<String> = []
        var lines = 0
        var out = JSONBytes(capacity: 64)
        for walk in ["traces/pier-head-to-guild.gpx", "traces/bold-street-long-stop.gpx", "traces/campus-loop.gpx"] {
            for (name, configuration) in try Self.configurations() {
                var replay = try Replay(trace: try TraceReader.read(path(walk)), places: places, configuration: configuration)
                while let event = replay.next() {
                    out.removeAll()
                    event.writeJSONLine(to: &out)
                    let expected = event.json.text
                    #expect(out.text == expected, "\(walk), \(name)")
                    #expect(event.jsonLine == expected)
                    kinds.insert(String(expected.dropFirst(9).prefix { $0 != "\"" }))
                    lines += 1
                }
            }
        }
        #expect(kinds.isSuperset(of: ["location", "filtered", "ranking", "map", "region", "visit", "summary"]), "\(kinds.sorted())")
        #expect(lines > 3000)
    }

    @Test("strings with quotes, backslashes, control characters and non-ASCII; numbers whole, fractional, tiny, huge and not finite")
    func values() {
        let strings = ["plain", "Café \"Bold\"", "back\\slash", "tab\there", "line\nbreak", "\u{1}\u{1F}", "日本", ""]
        let numbers = [0, -0.0, 1, -17, 0.1, 53.40715990000041, -2.9795228400051568, 1e-7, 123456789012345.6, 1e15, 1e300, .nan, .infinity, -.infinity]
        var out = JSONBytes()
        for s in strings {
            out.removeAll()
            out.string(s)
            #expect(out.text == JSON.string(s).text)
        }
        for d in numbers {
            out.removeAll()
            out.number(d)
            #expect(out.text == JSON.number(d).text, "\(d)")
        }
        for i in [0, 7, -7, 10, 1234567890, Int.max, Int.min] {
            out.removeAll()
            out.int(i)
            #expect(out.text == String(i))
        }
        // The same through a line's writer, one after another in the room reserved.
        out.removeAll()
        out.write(most: numbers.count * (JSONBytes.numberCapacity + 1) + 7 * 21) { w in
            for d in numbers { w.number(d); w.byte(UInt8(ascii: " ")) }
            for i in [0, 7, -7, 10, 1234567890, Int.max, Int.min] { w.int(i); w.byte(UInt8(ascii: " ")) }
        }
        #expect(out.text == (numbers.map { JSON.number($0).text } + [0, 7, -7, 10, 1234567890, Int.max, Int.min].map(String.init)).map { $0 + " " }.joined())
    }

    @Test("rankings and maps of 600 places whose ids and names are long, short, non-ASCII or need escapes, and of 600 that need none: the rows copied from the engine's table are the JSON values' text",
          arguments: [true, false])
    func tableRows(escapes: Bool) throws {
        let names = escapes ? ["Café \"Bold\"", "back\\slash", "tab\there", "日本", "", "Eight888", "Sixteen-letters!", "A name longer than a word or two"]
                            : ["Café", "日本", "", "Eight888", "Sixteen-letters!", "Seventeen-letters", "A name longer than a word or two", "x"]
        var rng = SplitMix64(seed: 17)
        let places = (0..<600).map { i in
            Place(id: "p\(i)\(String(repeating: "-", count: i % 19))", name: names[i % names.count],
                  coordinate: try! Coordinate(latitude: 53.4055 + rng.uniform(-0.01, 0.01), longitude: -2.966 + rng.uniform(-0.015, 0.015)), group: "g")
        }
        var configuration = ReplayConfiguration()
        configuration.follow = true
        configuration.within = 900
        var replay = try Replay(trace: try TraceReader.read(path("traces/campus-loop.gpx")), places: PlaceSet(places: places, groups: ["g"]),
                                configuration: configuration)
        var out = JSONBytes(capacity: 64)
        var rankings = 0, maps = 0
        while let event = replay.next() {
            switch event {
            case .ranking: rankings += 1
            case .map: maps += 1
            default: continue
            }
            out.removeAll()
            event.writeJSONLine(to: &out)
            #expect(out.text == event.json.text)
        }
        #expect(rankings > 10 && maps > 10)
    }
}
