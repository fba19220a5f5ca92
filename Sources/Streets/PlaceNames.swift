import Foundation
import Geodesy

/// The named elements of an extract, for finding a place by its name: a
/// node stands where it is, a way at its middle node.
///
/// Names are compared as ``SearchText`` folds them (without case or
/// diacritics, punctuation between words ignored), as `stroll search` and
/// `stroll geocode` compare them: "musee oceanographique" is the "Musée
/// Océanographique". A name is taken when the elements bearing it are one
/// place (within 100 m of each other, as a building mapped as a node and a
/// way) and no other place's name begins with it; otherwise the answer is
/// the candidates, for the user to choose by full name, by OpenStreetMap id
/// (`node/ID`, `way/ID`) or by `LAT,LON`. Without an exact name, every word
/// typed must be in the name.
struct PlaceNames: Sendable {
    /// One named element.
    struct Named: Sendable {
        var name: String
        var key: String
        var words: Set<String>
        var rank: Rank
        var coordinate: Coordinate

        /// `node/ID` or `way/ID`.
        var osmID: String { "\(rank.isWay ? "way" : "node")/\(rank.id)" }
    }

    /// What a name finds.
    enum Match: Sendable {
        case found(Coordinate)
        /// Several places, nearest first by rank; at most ``candidateLimit``.
        case ambiguous([Named], total: Int)
        case none
    }

    private var named: [Named] = []
    private var byKey: [String: [Int]] = [:]
    private var byID: [String: Int] = [:]

    static let candidateLimit = 8
    /// Elements of one name closer than this are one place.
    static let samePlace = 100.0

    /// Nodes before ways, then lower ids first.
    struct Rank: Comparable, Sendable {
        var isWay: Bool
        var id: Int64
        static func < (a: Rank, b: Rank) -> Bool { a.isWay != b.isWay ? !a.isWay : a.id < b.id }
    }

    static func key(_ name: String) -> String { SearchText.words(name).joined(separator: " ") }

    mutating func add(_ name: String, rank: Rank, coordinate: Coordinate) {
        let words = SearchText.words(name)
        guard !words.isEmpty else { return }
        let key = words.joined(separator: " ")
        let entry = Named(name: name, key: key, words: Set(words), rank: rank, coordinate: coordinate)
        byKey[key, default: []].append(named.count)
        byID[entry.osmID] = named.count
        named.append(entry)
    }

    /// The place `text` names (see ``PlaceNames``).
    func match(_ text: String) -> Match {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let index = byID[trimmed] { return .found(named[index].coordinate) }
        let query = SearchText.words(trimmed)
        guard !query.isEmpty else { return .none }
        let key = query.joined(separator: " ")
        let exact = (byKey[key] ?? []).map { named[$0] }.sorted { $0.rank < $1.rank }
        if let first = exact.first {
            let onePlace = exact.allSatisfy { Geodesic.wgs84.distance($0.coordinate, first.coordinate) <= Self.samePlace }
            let longer = named.filter { $0.key.hasPrefix(key + " ") }
            if onePlace && longer.isEmpty { return .found(first.coordinate) }
            return ambiguous(exact + longer.sorted { $0.rank < $1.rank })
        }
        let wanted = Set(query)
        let containing = named.filter { wanted.isSubset(of: $0.words) }.sorted { $0.rank < $1.rank }
        guard let first = containing.first else { return .none }
        if containing.allSatisfy({ $0.key == first.key && Geodesic.wgs84.distance($0.coordinate, first.coordinate) <= Self.samePlace }) {
            return .found(first.coordinate)
        }
        return ambiguous(containing)
    }

    /// The candidates, one per place (a name within ``samePlace`` of an earlier one of that name is the same place).
    private func ambiguous(_ candidates: [Named]) -> Match {
        var places: [Named] = []
        for c in candidates where !places.contains(where: { $0.key == c.key && Geodesic.wgs84.distance($0.coordinate, c.coordinate) <= Self.samePlace }) {
            places.append(c)
        }
        return .ambiguous(Array(places.prefix(Self.candidateLimit)), total: places.count)
    }

    var count: Int { named.count }
}
