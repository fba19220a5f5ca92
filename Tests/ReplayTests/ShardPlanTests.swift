import Foundation
import Geodesy
import Proximity
import Replay
import Testing
import TestSupport

/// The shard plan's rules that the batch relies on, apart from the replays:
/// each shard's command line, its place file, and what the merge refuses.
@Suite("ShardPlan: places split into shards and their events merged")
struct ShardPlanTests {
    func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-shards-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("places go round robin into shard files that read back as the same places; a shard lacking a group does not rank it")
    func shardFiles() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let places = [
            Place(id: "a", name: "Café, \"Bold\"", subtitle: "Bold St; L1", coordinate: try Coordinate(latitude: 53.401, longitude: -2.978), group: "cafes"),
            Place(id: "b", name: "Library", coordinate: try Coordinate(latitude: 53.409, longitude: -2.966), group: "theatres"),
            Place(id: "c", name: "Tea\tRoom", coordinate: try Coordinate(latitude: 53.404, longitude: -2.981), group: "cafes"),
        ]
        let plan = try ShardPlan.write(places, activeGroups: ["cafes", "theatres"], count: 2, placesRejected: 1, sortMode: .distance, directory: dir)
        #expect(plan.files.count == 2)
        #expect(plan.groups == [["cafes"], ["theatres"]])
        #expect(plan.position == ["a": 0, "b": 1, "c": 2])
        let first = try PlaceSet.load(plan.files[0])
        #expect(first.places.map(\.id) == ["a", "c"])
        #expect(first.places.map(\.name) == ["Café, \"Bold\"", "Tea\tRoom"])
        #expect(first.places.map(\.coordinate) == [places[0].coordinate, places[2].coordinate])
        #expect(first.places[0].subtitle == "Bold St; L1")
    }

    @Test("a shard's command line keeps the replay's options but its own places and groups, in either option form")
    func shardArguments() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let place = Place(id: "a", name: "A", coordinate: try Coordinate(latitude: 53.4, longitude: -2.97), group: "cafes")
        let plan = try ShardPlan.write([place, place], activeGroups: ["cafes"], count: 2, placesRejected: 0, sortMode: .distance, directory: dir)
        let arguments = plan.arguments(["replay", "walk.gpx", "--places", "x.osm.pbf", "--osm-filter=amenity=cafe", "--group", "cafes", "--seed", "3"], shard: 1)
        #expect(arguments == ["replay", "walk.gpx", "--seed", "3", "--places", plan.files[1], "--group", "cafes"])
    }

    @Test("the merge refuses shards that disagree or end early, naming the merged line")
    func mergeRefusals() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let place = Place(id: "a", name: "A", coordinate: try Coordinate(latitude: 53.4, longitude: -2.97), group: "cafes")
        let plan = try ShardPlan.write([place, place], activeGroups: ["cafes"], count: 2, placesRejected: 0, sortMode: .distance, directory: dir)
        func write(_ name: String, _ lines: [String]) throws -> String {
            let file = (dir as NSString).appendingPathComponent(name)
            try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
            return file
        }
        let a = try write("a.jsonl", [#"{"type":"filtered","t":1}"#, #"{"type":"summary","rankingChanges":0,"placesRejected":0}"#])
        let b = try write("b.jsonl", [#"{"type":"filtered","t":2}"#, #"{"type":"summary","rankingChanges":0,"placesRejected":0}"#])
        let short = try write("c.jsonl", [#"{"type":"filtered","t":1}"#])
        let out = (dir as NSString).appendingPathComponent("out.jsonl")
        #expect { try plan.merge([a, b], into: out) } throws: { ($0 as? ShardPlan.MergeError)?.reason.contains("line 1") == true }
        #expect { try plan.merge([a, short], into: out) } throws: { ($0 as? ShardPlan.MergeError)?.reason.contains("not every shard ends here") == true }
        #expect { try plan.merge([a, "/nonexistent/shard.jsonl"], into: out) } throws: { ($0 as? ShardPlan.MergeError)?.reason.contains("cannot read") == true }
        try plan.merge([a, a], into: out)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == #"{"type":"filtered","t":1}"# + "\n" + #"{"type":"summary","rankingChanges":0,"placesRejected":0}"# + "\n")
    }
}
