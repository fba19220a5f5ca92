import Batches
import Foundation
import PlacesGeoPackage
import PlaceSources
import Proximity
import Replay
import Testing
import TestSupport
import Traces

/// What `stroll batch --shard-places 2 --junit` does, done by a program with
/// the libraries alone: no `stroll` binary is started.
@Suite("Stroll as a library: a place source by name, a replay, two shards merged, a JUnit report")
struct LibraryUseTests {
    let walk = path("traces/pier-head-to-guild.gpx")

    func replayLines(_ places: PlaceSet, groups: [String]) throws -> [String] {
        var configuration = ReplayConfiguration()
        configuration.groups = groups
        var replay = try Replay(trace: try TraceReader.read(walk), places: places, configuration: configuration)
        return replay.run().map(\.jsonLine)
    }

    @Test("the places of a GeoPackage layer named FILE#LAYER, replayed whole and in two shards: the merged lines are the whole replay's")
    func shardsMergeIntoTheWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-library-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        // A GeoPackage of the CoffeeShop13 places and the lecture theatres, opened again by its URI-like name.
        var written = try PlaceSet.load(fixture("CityCycleRideLocations.plist"))
        written.merge(try PlaceSet.load(fixture("lecture-theatres.json")))
        let gpkg = (folder as NSString).appendingPathComponent("places.gpkg")
        try GeoPackageWriter.write(written.places, layer: "walk_places", to: gpkg)
        let (places, _) = try PlaceSources.load(gpkg + "#walk_places")
        #expect(places.places.map(\.id) == written.places.map(\.id))
        let groups = ["liverpool", "lecture-theatres"]
        #expect(Set(groups).isSubset(of: Set(places.groups)))

        let whole = try replayLines(places, groups: groups)
        #expect(whole.filter { $0.hasPrefix("{\"type\":\"ranking\"") }.count > 100)

        // Two shards, each replayed over its own place file, merged.
        let plan = try ShardPlan.write(try places.places(inGroups: groups), activeGroups: groups, count: 2, placesRejected: places.rejected.count,
                                       sortMode: .distance, directory: (folder as NSString).appendingPathComponent("shards"))
        var outputs: [String] = []
        for (k, file) in plan.files.enumerated() {
            let shard = try PlaceSources.load(file).places
            #expect(shard.places.count < places.places.count)
            let output = (folder as NSString).appendingPathComponent("shard-\(k).jsonl")
            try Data((try replayLines(shard, groups: plan.groups[k]).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: output))
            outputs.append(output)
        }
        let merged = (folder as NSString).appendingPathComponent("merged.jsonl")
        try plan.merge(outputs, into: merged)
        let mergedLines = try String(contentsOfFile: merged, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(mergedLines.count == whole.count)
        #expect(mergedLines == whole)

        // Shards that disagree are refused, naming the line.
        let broken = (folder as NSString).appendingPathComponent("broken.jsonl")
        try Data(try String(contentsOfFile: outputs[1], encoding: .utf8).split(separator: "\n").dropFirst(3).joined(separator: "\n").utf8)
            .write(to: URL(fileURLWithPath: broken))
        #expect(throws: ShardPlan.MergeError.self) { try plan.merge([outputs[0], broken], into: merged) }

        // The JUnit report of the walk that passed and one that diverged, as a CI system reads it.
        let items = [Batch.Item(trace: walk, stem: "pier-head-to-guild", status: .done, seconds: 1.25),
                     Batch.Item(trace: "campus & <loop>.gpx", stem: "campus", status: .diverged, reason: "verify: first divergence at t=12 s")]
        let junit = Batch.junitXML(items, seconds: 2)
        #expect(junit.contains("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""))
        #expect(junit.contains("<testcase classname=\"stroll.batch\" name=\"\(walk)\" time=\"1.250\"/>"))
        #expect(junit.contains("name=\"campus &amp; &lt;loop&gt;.gpx\""))
        #expect(junit.contains("<failure message=\"verify: first divergence at t=12 s\" type=\"diverged\">"))
        #expect(junit.components(separatedBy: "<testcase ").count == 3)
    }
}
