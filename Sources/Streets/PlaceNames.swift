import Foundation
import Geodesy

/// The named elements of an extract, for finding a place by its name: a
/// node stands where it is, a way at its middle node. A name that several
/// elements share is the first node by id, else the first way by id.
struct PlaceNames: Sendable {
    private var places: [String: (rank: Rank, coordinate: Coordinate)] = [:]

    /// Nodes before ways, then lower ids first.
    struct Rank: Comparable, Sendable {
        var isWay: Bool
        var id: Int64
        static func < (a: Rank, b: Rank) -> Bool { a.isWay != b.isWay ? !a.isWay : a.id < b.id }
    }

    static func key(_ name: String) -> String { name.trimmingCharacters(in: .whitespaces).lowercased() }

    mutating func add(_ name: String, rank: Rank, coordinate: Coordinate) {
        let key = Self.key(name)
        guard !key.isEmpty else { return }
        if let known = places[key], known.rank < rank { return }
        places[key] = (rank, coordinate)
    }

    /// The place with this name, compared without case.
    func coordinate(named name: String) -> Coordinate? { places[Self.key(name)]?.coordinate }

    var count: Int { places.count }
}
