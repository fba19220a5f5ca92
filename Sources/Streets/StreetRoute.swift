import Geodesy

/// A shortest walking route on a ``StreetNetwork``: its length, the
/// OpenStreetMap nodes it passes and its line.
public struct StreetRoute: Sendable, Equatable {
    /// Metres along the route: the sum of its edges' geodesic lengths, with
    /// the parts of the first and last edges from and to the snapped points.
    public var distance: Double
    /// The ids of the OpenStreetMap nodes the route passes, in order (a
    /// snapped point that is a node included).
    public var nodes: [Int64]
    /// The route's line: the snapped start, the nodes' locations, the snapped
    /// via points and the snapped end, without repeats.
    public var coordinates: [Coordinate]
    /// The route in runs along one way name: where the walker turns into
    /// another street, a new stretch begins.
    public var stretches: [Stretch]
    /// The start, snapped to the network.
    public var from: StreetSnap
    /// The end, snapped to the network.
    public var to: StreetSnap
    /// The via points, snapped to the network, in order.
    public var via: [StreetSnap]
    /// The points of ``coordinates`` (indices, in order) where the walker
    /// waits to cross a road or a railway: nodes tagged as crossings or
    /// traffic signals (``WalkingRules/waitsToCross(_:)``), not the route's
    /// two ends.
    public var crossings: [Int] = []

    /// A run of the route's line along ways of one name.
    public struct Stretch: Sendable, Equatable {
        /// The ways' `name`, else their `ref`; nil for unnamed ways (footpaths, most steps).
        public var name: String?
        /// The stretch's first and last points, as indices in ``StreetRoute/coordinates``.
        public var range: ClosedRange<Int>
        /// Metres along the stretch.
        public var distance: Double
    }

    /// The expected walking time, in seconds, at `speed` metres per second.
    public func duration(atSpeed speed: Double) -> Double { distance / speed }
}
