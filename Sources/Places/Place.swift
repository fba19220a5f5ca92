import Foundation
import Geodesy

/// A place to rank: a coffee house, a lecture theatre.
public struct Place: Hashable, Sendable, Identifiable {
    public var id: String
    public var name: String
    /// The comment shown under the name (CoffeeShop13's `comments`).
    public var subtitle: String?
    public var coordinate: Coordinate
    public var group: String

    public init(id: String, name: String, subtitle: String? = nil, coordinate: Coordinate, group: String) {
        self.id = id
        self.name = name
        self.subtitle = subtitle
        self.coordinate = coordinate
        self.group = group
    }
}

/// A place entry that could not be loaded, and why.
public struct PlaceRejection: Equatable, Sendable, CustomStringConvertible {
    public var file: String
    /// Where in the file: `group liverpool entry 3`, `line 7`.
    public var entry: String
    public var reason: String

    public var description: String { "\(file): \(entry): \(reason)" }

    public init(file: String, entry: String, reason: String) {
        self.file = file
        self.entry = entry
        self.reason = reason
    }
}

/// A file that cannot be read as places at all.
public struct PlaceFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var reason: String
    /// The file is missing or unreadable (rather than malformed).
    public var unreadable: Bool

    public var description: String { "\(file): \(reason)" }

    public init(file: String, reason: String, unreadable: Bool) {
        self.file = file
        self.reason = reason
        self.unreadable = unreadable
    }
}

/// Places loaded from files, with the groups in the order they appeared.
public struct PlaceSet: Equatable, Sendable {
    public var places: [Place] = []
    public var groups: [String] = []
    public var rejected: [PlaceRejection] = []

    public init(places: [Place] = [], groups: [String] = [], rejected: [PlaceRejection] = []) {
        self.places = places
        self.groups = groups
        self.rejected = rejected
    }

    /// Adds another file's places; a place whose id is already taken is rejected.
    public mutating func merge(_ other: PlaceSet) {
        var taken = Set(places.map(\.id))
        for p in other.places {
            if taken.insert(p.id).inserted {
                places.append(p)
            } else {
                rejected.append(Self.duplicate(p, file: ""))
            }
        }
        for g in other.groups where !groups.contains(g) { groups.append(g) }
        rejected += other.rejected
    }

    /// Rejects places whose id repeats an earlier one in the same file.
    mutating func rejectDuplicateIDs(file: String) {
        var taken = Set<String>()
        var kept: [Place] = []
        for p in places {
            if taken.insert(p.id).inserted {
                kept.append(p)
            } else {
                rejected.append(Self.duplicate(p, file: file))
            }
        }
        places = kept
    }

    /// The rejection of a place whose id an earlier place already has: the first is kept.
    static func duplicate(_ p: Place, file: String) -> PlaceRejection {
        PlaceRejection(file: file, entry: "id \(p.id)", reason: "\(p.name): duplicate id \(p.id); the first place with it is kept")
    }

    /// A group asked for that the set does not have.
    public struct UnknownGroup: Error, Sendable, CustomStringConvertible {
        /// The group asked for.
        public var group: String
        /// The set's groups.
        public var groups: [String]
        public var description: String { "unknown group \"\(group)\"; the groups are: \(groups.joined(separator: ", "))" }
    }

    /// The groups a replay ranks: `chosen` when it names any (each must be one
    /// of the set's), else those of `defaults` the set has, else every group.
    public func groups(chosen: [String], defaults: [String]? = nil) throws(UnknownGroup) -> [String] {
        guard !chosen.isEmpty else { return defaults.map { $0.filter(groups.contains) } ?? groups }
        if let unknown = chosen.first(where: { !groups.contains($0) }) { throw UnknownGroup(group: unknown, groups: groups) }
        return chosen
    }

    /// The places of the groups named (every place when none is named). A
    /// name that is not one of the set's groups is an error naming them: a
    /// mistyped group (`"Liverpool"` for `"liverpool"`) never reads as a
    /// group without places.
    public func places(inGroups names: [String]) throws(UnknownGroup) -> [Place] {
        if let unknown = names.first(where: { !groups.contains($0) }) { throw UnknownGroup(group: unknown, groups: groups) }
        return names.isEmpty ? places : places.filter { names.contains($0.group) }
    }
}
