import Foundation
import Proximity
import Traces

/// The merge of the shards' event streams into the one `stroll replay` prints
/// for all places (the rules are on ``ShardPlan``).
extension ShardPlan {
    /// Why the shards' events cannot be merged: a shard missing, or shards that disagree.
    public struct MergeError: Error, Sendable {
        public var reason: String
    }

    /// Merges the shards' JSON Lines (`inputs`, one per shard) into `output`.
    public func merge(_ inputs: [String], into output: String) throws(MergeError) {
        var readers: [LineReader] = []
        for path in inputs {
            // A ranking line lists every place of the shard: megabytes at a million places.
            do {
                readers.append(try LineReader(path: path, maximumLength: 1 << 30))
            } catch {
                throw MergeError(reason: "cannot read \(path): \(error.reason)")
            }
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
        var changes = 0
        var visible = [[String]](repeating: [], count: readers.count)
        var readError: TraceError?
        func read(_ s: Int) -> [UInt8]? {
            do {
                return try readers[s].next().map(Array.init)
            } catch {
                readError = readError ?? error
                return nil
            }
        }
        var heads = readers.indices.map(read)
        var lineNumber = 1
        func advance(_ s: Int) { heads[s] = read(s) }
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
            if let readError { throw MergeError(reason: readError.description) }
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
                    if update.changed { changes += 1 }
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
