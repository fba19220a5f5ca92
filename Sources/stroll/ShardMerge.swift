import Foundation
import Proximity
import Replay

/// `stroll batch --shard-places K`: the places split into K shards, each walk
/// replayed once per shard (on different Ray workers with --ray), and the K
/// event streams merged into the one `stroll replay` prints for all places.
///
/// Every shard replays the same walk with the same options, so every event
/// that does not depend on the places (location, filtered, region, pause,
/// resume, error) is the same line in every shard; it is checked and written
/// once. Each group's `ranking` lines are merged by ``ShardedRanking`` into
/// the exact order of all places, with moves, inserts and deletes against
/// the previous merged order. A `map` line comes after an update in which
/// any shard's visible pins changed: its `visible` is every shard's latest,
/// in the order of the places. The `summary` counts the merged order
/// changes and the places rejected on reading.
struct ShardPlan: Sendable {
    /// The shard place files, written once before the batch.
    var files: [String]
    /// The groups each shard ranks, in the batch's order (a shard may lack a small group).
    var groups: [[String]]
    /// Every ranked group, in order.
    var activeGroups: [String]
    /// Each place's position in the order the map lists pins.
    var position: [String: Int]
    var placesRejected: Int
    var sortMode: SortMode

    /// Splits `places` (the ranked groups' places, in order) round robin into `count` shard files in `directory`.
    static func write(_ places: [Place], activeGroups: [String], count: Int, placesRejected: Int, sortMode: SortMode,
                      directory: String) throws -> ShardPlan {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func field(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        var files: [String] = [], groups: [[String]] = []
        for k in 0..<count {
            var text = "id,name,subtitle,latitude,longitude,group\n"
            var present = Set<String>()
            for (i, p) in places.enumerated() where i % count == k {
                // Shortest round-trip digits: the shard reads back the very same coordinates.
                text += "\(field(p.id)),\(field(p.name)),\(field(p.subtitle ?? "")),\(p.coordinate.latitude),\(p.coordinate.longitude),\(field(p.group))\n"
                present.insert(p.group)
            }
            let path = (directory as NSString).appendingPathComponent("shard-\(k).csv")
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            files.append(path)
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
    func arguments(_ replay: [String], shard k: Int) -> [String] {
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

    struct MergeError: Error {
        var reason: String
    }

    /// Merges the shards' JSON Lines (`inputs`, one per shard) into `output`.
    func merge(_ inputs: [String], into output: String) throws(MergeError) {
        var readers: [LineReader] = []
        for path in inputs {
            guard let reader = LineReader(path: path) else { throw MergeError(reason: "cannot read \(path)") }
            readers.append(reader)
        }
        guard FileManager.default.createFile(atPath: output, contents: nil), let sink = FileHandle(forWritingAtPath: output) else {
            throw MergeError(reason: "cannot write \(output)")
        }
        defer { try? sink.close() }
        var out: [UInt8] = []
        func emit(_ line: [UInt8]) {
            out += line
            out.append(0x0A)
            if out.count > 1 << 20 {
                sink.write(Data(out))
                out.removeAll(keepingCapacity: true)
            }
        }
        var rankings = Dictionary(uniqueKeysWithValues: activeGroups.map { ($0, ShardedRanking(sortMode: sortMode)) })
        var ranked = Set<String>()
        var changes = 0
        var visible = [[String]](repeating: [], count: readers.count)
        var heads = readers.map { $0.next() }
        var lineNumber = 1
        func advance(_ s: Int) { heads[s] = readers[s].next() }
        func disagree(_ what: String) -> MergeError { MergeError(reason: "the shards disagree at line \(lineNumber) of the merged events: \(what)") }
        let decoder = JSONDecoder()

        while true {
            // Map lines first: any shard whose visible pins changed after the last update.
            let maps = heads.indices.filter { heads[$0].map { Self.type(of: $0) == "map" } ?? false }
            if !maps.isEmpty {
                var region: MapLine.Region?, t = 0.0, selected: String?
                for s in maps {
                    guard let line = heads[s], let map = try? decoder.decode(MapLine.self, from: Data(line)) else { throw disagree("a map line that cannot be read") }
                    visible[s] = map.visible
                    region = map.region
                    t = map.t
                    selected = selected ?? map.selected
                    advance(s)
                }
                let all = visible.flatMap { $0 }.sorted { (position[$0] ?? Int.max) < (position[$1] ?? Int.max) }
                let regionJSON: JSON = region.map { r in
                    .object([("center", .object([("lat", .number(r.center.lat)), ("lon", .number(r.center.lon))])),
                             ("span", .object([("latDelta", .number(r.span.latDelta)), ("lonDelta", .number(r.span.lonDelta))]))])
                } ?? .null
                let line = JSON.object([("type", .string("map")), ("t", .number(t)), ("region", regionJSON),
                                        ("visible", .array(all.map { .string($0) })), ("selected", .optional(selected))])
                emit(Array(line.text.utf8))
                lineNumber += 1
                continue
            }
            guard let first = heads[0] else {
                guard heads.allSatisfy({ $0 == nil }) else { throw disagree("shard 0 ended before the others") }
                break
            }
            let type = Self.type(of: first)
            switch type {
            case "summary":
                guard heads.allSatisfy({ $0.map { Self.type(of: $0) == "summary" } ?? false }) else { throw disagree("not every shard ends here") }
                var text = String(decoding: first, as: UTF8.self)
                text = Self.replacing("rankingChanges", with: changes, in: text)
                text = Self.replacing("placesRejected", with: placesRejected, in: text)
                emit(Array(text.utf8))
                for s in heads.indices { advance(s) }
                lineNumber += 1
            case "ranking":
                throw disagree("a ranking line without the location before it")
            default:
                // The same line in every shard.
                for s in heads.indices.dropFirst() where heads[s] != first {
                    throw disagree("shard \(s) has another \(type) event")
                }
                emit(first)
                for s in heads.indices { advance(s) }
                lineNumber += 1
                guard type == "location" else { continue }
                // Then each group's ranking, from the shards that rank it.
                for group in activeGroups {
                    var parts: [ShardedRanking.Shard] = []
                    var t = 0.0
                    for s in heads.indices where groups[s].contains(group) {
                        guard let line = heads[s], Self.type(of: line) == "ranking",
                              let r = try? decoder.decode(RankingLine.self, from: Data(line)), r.group == group else {
                            throw disagree("shard \(s) has no ranking of \(group) here")
                        }
                        let nearestDistance = r.nearest.flatMap { id in r.order.firstIndex(of: id).map { r.distances[$0] } }
                        parts.append(ShardedRanking.Shard(order: r.order, names: r.names, distances: r.distances, nearest: r.nearest, nearestDistance: nearestDistance))
                        t = r.t
                        advance(s)
                    }
                    guard var ranking = rankings[group] else { continue }
                    let update = ranking.merge(parts)
                    rankings[group] = ranking
                    if update.changed && ranked.contains(group) { changes += 1 }
                    ranked.insert(group)
                    emit(Array(ReplayEvent.ranking(update, group: group, t: t).jsonLine.utf8))
                    lineNumber += 1
                }
            }
        }
        sink.write(Data(out))
    }

    /// The event type a line starts with (`{"type":"…"`, as Stroll writes every event).
    static func type(of line: [UInt8]) -> String {
        let prefix = Array("{\"type\":\"".utf8)
        guard line.starts(with: prefix) else { return "" }
        let rest = line[prefix.count...]
        return String(decoding: rest.prefix { $0 != UInt8(ascii: "\"") }, as: UTF8.self)
    }

    static func replacing(_ key: String, with value: Int, in line: String) -> String {
        guard let range = line.range(of: "\"\(key)\":") else { return line }
        let digits = line[range.upperBound...].prefix { $0.isNumber || $0 == "-" }
        return line.replacingCharacters(in: range.upperBound..<digits.endIndex, with: "\(value)")
    }

    private struct RankingLine: Decodable {
        var t: Double
        var group: String
        var order: [String]
        var names: [String]
        var distances: [Double]
        var nearest: String?
    }

    private struct MapLine: Decodable {
        struct Region: Decodable {
            struct Center: Decodable { var lat: Double; var lon: Double }
            struct Span: Decodable { var latDelta: Double; var lonDelta: Double }
            var center: Center
            var span: Span
        }
        var t: Double
        var region: Region?
        var visible: [String]
        var selected: String?
    }
}

/// Lines of a file read in chunks (a shard's events: lines of megabytes at a million places).
final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// The next line without its newline; nil at the end.
    func next() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            if ended {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return line
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = (try? handle.read(upToCount: 1 << 22)) ?? nil
            if let chunk, !chunk.isEmpty { buffer += chunk } else { ended = true }
        }
    }
}
