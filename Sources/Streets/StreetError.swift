import Geodesy

/// Why a street network cannot be built or a route cannot be found: the kind,
/// for a caller that maps it to an exit code or a MapKit error, and a sentence
/// naming the file, place or points and the reason.
public struct StreetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The extract is missing or cannot be opened.
        case unreadable
        /// The extract cannot be read as OpenStreetMap data.
        case badData
        /// The extract holds no way a pedestrian may use.
        case noWalkableWays
        /// A point is farther from every walkable way than the options allow.
        case outsideNetwork
        /// A place name that no element of the extract has.
        case unknownPlace
        /// A place name that several places of the extract answer.
        case ambiguousPlace
        /// No walkable path joins the two points.
        case noRoute
    }

    /// What went wrong.
    public var kind: Kind
    /// The file, place or points, and the reason.
    public var description: String

    /// An error of `kind` with its explanation.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
