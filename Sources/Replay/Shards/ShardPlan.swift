import Foundation
import Proximity
import Traces

/// `stroll batch --shard-places K`: the places split into K shards, each walk
/// replayed once per shard (on different Ray workers with --ray), and the K
/// event streams merged into the one `stroll replay` prints for all places.
///
/// Every shard replays the same walk with the same options, so every event
/// that does not depend on the places (location, filtered, region, pause,
/// resume, error) is the same line in every shard; it is checked and written
/// once. Each group's `ranking` lines are merged by ``Proximity/ShardedRanking`` into
/// the exact order of all places, with moves, inserts and deletes against
/// the previous merged order. A `map` line comes after an update in which
/// any shard's visible pins changed: its `visible` is every shard's latest,
/// in the order of the places. The `summary` counts the merged order
/// changes and the places rejected on reading.
public struct ShardPlan: Sendable {
    /// The shard place files, written once before the batch.
    public var files: [String]
    /// The groups each shard ranks, in the batch's order (a shard may lack a small group).
    public var groups: [[String]]
    /// Every ranked group, in order.
    public var activeGroups: [String]
    /// Each place's position in the order the map lists pins.
    public var position: [String: Int]
    public var placesRejected: Int
    public var sortMode: SortMode

    /// Splits `places` (the ranked groups' places, in order) round robin into `count` shard files in `directory`.
    public static func write(_ places: [Place], activeGroups: [String], count: Int, placesRejected: Int, sortMode: SortMode,
                      directory: String) throws -> ShardPlan {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var files: [String] = [], groups: [[String]] = []
        for k in 0..<count {
            let shard = places.enumerated().filter { $0.offset % count == k }.map(\.element)
            let path = (directory as NSString).appendingPathComponent("shard-\(k).csv")
            try Data(PlaceWriter.csv(shard).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            files.append(path)
            let present = Set(shard.map(\.group))
            groups.append(activeGroups.filter(present.contains))
        }
        var position: [String: Int] = [:]
        position.reserveCapacity(places.count)
        for (i, p) in places.enumerated() { position[p.id] = i }
        return ShardPlan(files: files, groups: groups, activeGroups: activeGroups, position: position,
                         placesRejected: placesRejected, sortMode: sortMode)
    }

    /// A shard's replay arguments: the batch's, with its own place file and
    /// groups (the shard files hold places already read, so the options that
    /// choose OpenStreetMap elements go too).
    public func arguments(_ replay: [String], shard k: Int) -> [String] {
        let placeOptions = ["--places", "--group", "--osm-filter", "--group-name", "--name-column", "--group-column", "--places-sql"]
        var kept: [String] = []
        var i = 0
        while i < replay.count {
            let a = replay[i]
            if placeOptions.contains(a) {
                i += 2
                continue
            }
            if placeOptions.contains(where: { a.hasPrefix($0 + "=") }) {
                i += 1
                continue
            }
            kept.append(a)
            i += 1
        }
        return kept + ["--places", files[k]] + groups[k].flatMap { ["--group", $0] }
    }
}
