import Foundation
import Geodesy

/// How the list is sorted.
public enum SortMode: String, Sendable, CaseIterable {
    /// Nearest first (the default).
    case distance
    /// Alphabetical by name (Unicode scalar order), then id.
    case name
}

/// A row move as a table view's batch update takes it: `from` an index in the
/// previous order, `to` an index in the new one.
///
/// Rows are held in 32 bits (lists hold fewer than 2³² rows; place indices are
/// 32-bit too), so that a diff of many rows writes half the bytes.
public struct RowMove: Equatable, Hashable, Sendable {
    private var fromRow: UInt32
    private var toRow: UInt32

    public var from: Int {
        get { Int(fromRow) }
        set { fromRow = UInt32(newValue) }
    }

    public var to: Int {
        get { Int(toRow) }
        set { toRow = UInt32(newValue) }
    }

    /// Rows from 0 to `UInt32.max`.
    public init(from: Int, to: Int) {
        fromRow = UInt32(from)
        toRow = UInt32(to)
    }

    /// Rows already known to fit (``OrderDiff``'s, below its count of rows).
    @inline(__always)
    init(unchecked from: Int, _ to: Int) {
        fromRow = UInt32(truncatingIfNeeded: from)
        toRow = UInt32(truncatingIfNeeded: to)
    }
}

/// What one delivered location did to the sorted list.
public struct RankingUpdate: Equatable, Sendable {
    /// Place ids, first row first.
    public var order: [String]
    public var names: [String]
    /// Geodesic distances in metres, in `order`.
    public var distances: [Double]
    /// "85 m", "1.2 km": as a table cell shows them (``ProximityEngine/display(_:)``
    /// of each distance, made when asked, unless the update was made with its own).
    public var displayDistances: [String] {
        get { givenDisplayDistances ?? distances.map(ProximityEngine.display) }
        set { givenDisplayDistances = newValue }
    }
    private var givenDisplayDistances: [String]?
    /// Whether `order` differs from the previous update's (always true for the first).
    public var changed: Bool
    /// The fewest row moves that turn the previous order into this one
    /// (places not listed keep their relative order).
    public var moves: [RowMove]
    /// Ids that joined the list, and ids that left it, since the previous update.
    public var inserted: [String]
    public var deleted: [String]
    /// The nearest place's id (whatever the sort mode), nil for an empty list.
    public var nearest: String?
    /// The nearest place's distance in metres.
    public var nearestDistance: Double?

    /// An update; `displayDistances` nil shows each distance as ``ProximityEngine/display(_:)`` does.
    public init(order: [String], names: [String], distances: [Double], displayDistances: [String]? = nil, changed: Bool,
                moves: [RowMove], inserted: [String], deleted: [String], nearest: String?, nearestDistance: Double?) {
        self.order = order
        self.names = names
        self.distances = distances
        givenDisplayDistances = displayDistances
        self.changed = changed
        self.moves = moves
        self.inserted = inserted
        self.deleted = deleted
        self.nearest = nearest
        self.nearestDistance = nearestDistance
    }
}

/// Recomputes and re-sorts distances to a set of places on every update.
///
/// Order (the command-line contract): ascending WGS84 geodesic distance
/// rounded to the whole millimetre, then name in Unicode scalar order, then
/// id, so every machine and run agree. Distances come from the chord formula
/// (``Geodesy/GeodesicDistanceFrame``, within 1e-6 m of Karney's geodesic up to 20 km,
/// Karney's method beyond); a distance within that tolerance of a half
/// millimetre, where rounding could go either way, is recomputed with
/// Karney's method, so the order is exactly the geodesic one.
public struct ProximityEngine {
    public private(set) var places: [Place]
    public var sortMode: SortMode
    /// Places farther than this (metres) leave the list.
    public var maximumRadius: Double?
    /// Only places for which this is true are listed.
    public var predicate: ((Place) -> Bool)?

    private var ecef: [SIMD3<Double>]
    private var nameRank: [Int32]
    private var idRank: [Int32]
    private var distances: [Double]
    private var millimetres: [Int64]
    /// Each place's rank by name, then id: its place among places at the same millimetre.
    private var tieRank: [Int64] = []
    /// The order's one comparison: millimetres above the tie rank (``keyShift`` bits).
    private var keys: [Int64] = []
    /// The place of each tie rank when no two places share one (ids differ):
    /// then a key alone names its place, and the keys are sorted as plain
    /// integers, not through the places' indices. Nil when two share one.
    private var placeOfTieRank: [Int]?
    /// The active places' keys in a list's order, kept between updates.
    private var sortKeys: [Int64] = []
    /// The places' ids and names by index, apart from the rest of each place:
    /// a list's rows read them in ranked order, and these arrays are a fifth
    /// of the places' size (fewer cache misses at thousands of places).
    private var placeIDs: [String] = []
    private var placeNames: [String] = []
    private var order: [Int] = []
    private var previousIDs: [String] = []
    private var isFirst = true
    private var scratch: [Int] = []
    /// Each place's row in the previous list during a diff (-1 when not in it).
    private var previousRow: [Int] = []
    /// Whether `order` is the previous list of these places (not since `setPlaces`).
    private var orderIsPrevious = false
    private let geodesic: Geodesic

    public init(places: [Place], sortMode: SortMode = .distance, geodesic: Geodesic = .wgs84) {
        self.places = places
        self.sortMode = sortMode
        self.geodesic = geodesic
        ecef = []
        nameRank = []
        idRank = []
        distances = []
        millimetres = []
        rebuildIndex()
    }

    /// Replaces the set of places; the next update reports what was inserted and deleted.
    public mutating func setPlaces(_ newPlaces: [Place]) {
        places = newPlaces
        rebuildIndex()
        order = []
        orderIsPrevious = false
    }

    private mutating func rebuildIndex() {
        ecef = places.map { geodesic.ellipsoid.ecef($0.coordinate) }
        nameRank = Self.ranks(places.map(\.name))
        idRank = Self.ranks(places.map(\.id))
        distances = Array(repeating: 0, count: places.count)
        millimetres = Array(repeating: 0, count: places.count)
        let byTie = places.indices.sorted { (nameRank[$0], idRank[$0]) < (nameRank[$1], idRank[$1]) }
        tieRank = Array(repeating: 0, count: places.count)
        var rank: Int64 = 0
        for (k, i) in byTie.enumerated() {
            if k > 0, (nameRank[byTie[k - 1]], idRank[byTie[k - 1]]) < (nameRank[i], idRank[i]) { rank += 1 }
            tieRank[i] = rank
        }
        keys = Array(repeating: 0, count: places.count)
        placeOfTieRank = nil
        if Int(rank) == places.count - 1 {
            var place = [Int](repeating: 0, count: places.count)
            for i in places.indices { place[Int(tieRank[i])] = i }
            placeOfTieRank = place
        }
        placeIDs = places.map(\.id)
        placeNames = places.map(\.name)
    }

    /// Bits of a key below the millimetres: room for 2^28 tie ranks, and
    /// millimetres up to 2^35 (34 000 km: more than half the Earth's circumference).
    static let keyShift: Int64 = 28

    /// Ranks of strings in Unicode scalar order (equal strings share a rank).
    static func ranks(_ strings: [String]) -> [Int32] {
        let sorted = strings.indices.sorted { scalarLess(strings[$0], strings[$1]) }
        var ranks = [Int32](repeating: 0, count: strings.count)
        var rank: Int32 = 0
        for (k, i) in sorted.enumerated() {
            if k > 0, scalarLess(strings[sorted[k - 1]], strings[i]) { rank += 1 }
            ranks[i] = rank
        }
        return ranks
    }

    /// Lexicographic order of Unicode scalar values (not Swift's canonical string order).
    public static func scalarLess(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) { $0.value < $1.value }
    }

    /// The list as it stands for a walker at `coordinate`.
    public mutating func update(from coordinate: Coordinate) -> RankingUpdate {
        let frame = GeodesicDistanceFrame(origin: coordinate, geodesic: geodesic)
        var active: [Int] = []
        active.reserveCapacity(places.count)
        for i in places.indices {
            var d = frame.chordDistance(toECEF: ecef[i])
            if d > GeodesicDistanceFrame.exactRange {
                d = geodesic.distance(coordinate, places[i].coordinate)
            } else {
                let scaled = d * 1000
                let fraction = scaled - scaled.rounded(.down)
                if abs(fraction - 0.5) * 0.001 <= GeodesicDistanceFrame.tolerance {
                    d = geodesic.distance(coordinate, places[i].coordinate)
                }
            }
            distances[i] = d
            let mm = Int64((d * 1000).rounded())
            millimetres[i] = mm
            keys[i] = mm << Self.keyShift | tieRank[i]
            if let r = maximumRadius, d > r { continue }
            if let predicate, !predicate(places[i]) { continue }
            active.append(i)
        }
        // Start from the previous order (kept places first, in their order): the
        // standard library's sort is fast on nearly sorted input.
        var candidate: [Int]
        if active.count == places.count && order.count == places.count {
            candidate = order
        } else {
            let activeSet = Set(active)
            candidate = order.filter { activeSet.contains($0) }
            let kept = Set(candidate)
            candidate += active.filter { !kept.contains($0) }
        }
        // One comparison of 64-bit keys (millimetres, then name, then id), read
        // from local arrays: the same order as comparing the three in turn.
        let keys = self.keys, tieRank = self.tieRank
        switch sortMode {
        case .distance:
            if let placeOfTieRank {
                sortKeys.removeAll(keepingCapacity: true)
                for i in candidate { sortKeys.append(keys[i]) }
                Self.sortNearlySorted(&sortKeys)
                let mask: Int64 = (1 << Self.keyShift) - 1
                for k in candidate.indices { candidate[k] = placeOfTieRank[Int(sortKeys[k] & mask)] }
            } else {
                candidate.sort { keys[$0] < keys[$1] }
            }
        case .name:
            candidate.sort { tieRank[$0] < tieRank[$1] }
        }
        var ids: [String] = [], names: [String] = [], shown: [Double] = []
        ids.reserveCapacity(candidate.count)
        names.reserveCapacity(candidate.count)
        shown.reserveCapacity(candidate.count)
        for i in candidate {
            ids.append(placeIDs[i])
            names.append(placeNames[i])
            shown.append(distances[i])
        }
        let nearestIndex = sortMode == .distance ? candidate.first : active.min { keys[$0] < keys[$1] }
        let nearest = nearestIndex.map { (placeIDs[$0], distances[$0]) }
        let update: RankingUpdate
        if !isFirst && orderIsPrevious {
            // The same places as the previous list: the diff on their indices, no hashing of ids.
            let diff = indexDiff(previous: order, current: candidate)
            update = RankingUpdate(order: ids, names: names, distances: shown, changed: diff.changed, moves: diff.moves,
                                   inserted: diff.inserted.map { placeIDs[$0] }, deleted: diff.deleted.map { placeIDs[$0] },
                                   nearest: nearest?.0, nearestDistance: nearest?.1)
        } else {
            update = Self.update(order: ids, names: names, distances: shown, nearest: nearest, previous: isFirst ? nil : previousIDs)
        }
        isFirst = false
        order = candidate
        orderIsPrevious = true
        previousIDs = ids
        return update
    }

    /// Sorts `keys`, which start in the previous update's order: between two
    /// fixes of a walk few places pass one another, so insertion sort does it
    /// in one pass and a few shifts; past a budget of shifts (a jump across
    /// the map) the standard library's sort takes over. Distinct keys have
    /// one sorted order, whichever sort gives it.
    static func sortNearlySorted(_ keys: inout [Int64]) {
        let budget = 8 * keys.count + 64
        let done = keys.withUnsafeMutableBufferPointer { k -> Bool in
            var shifts = 0
            for i in k.indices.dropFirst() {
                let v = k[i]
                var j = i
                while j > 0 && k[j - 1] > v {
                    k[j] = k[j - 1]
                    j -= 1
                }
                k[j] = v
                shifts &+= i - j
                if shifts > budget { return false }
            }
            return true
        }
        if !done { keys.sort() }
    }

    /// ``RowDiff`` between two lists of these places by their indices: whether
    /// they differ, the fewest row moves, and the places that joined and left.
    private mutating func indexDiff(previous: [Int], current: [Int]) -> (changed: Bool, moves: [RowMove], inserted: [Int], deleted: [Int]) {
        if previous == current { return (false, [], [], []) }
        if previousRow.count != places.count { previousRow = [Int](repeating: -1, count: places.count) }
        for (row, i) in previous.enumerated() { previousRow[i] = row }
        var inserted: [Int] = [], from: [Int] = [], to: [Int] = []
        from.reserveCapacity(current.count)
        to.reserveCapacity(current.count)
        for (row, i) in current.enumerated() {
            let old = previousRow[i]
            if old < 0 {
                inserted.append(i)
            } else {
                from.append(old)
                to.append(row)
                previousRow[i] = -2
            }
        }
        let deleted = previous.filter { previousRow[$0] >= 0 }
        for i in previous { previousRow[i] = -1 }
        let keep = RowDiff.longestIncreasing(from)
        var moves: [RowMove] = []
        for k in keep.indices where !keep[k] { moves.append(RowMove(from: from[k], to: to[k])) }
        return (true, moves, inserted, deleted)
    }

    /// The update for a new order after `previous` (nil for the first): what
    /// changed, the fewest row moves, what joined and left.
    static func update(order ids: [String], names: [String], distances: [Double], nearest: (id: String, distance: Double)?,
                       previous: [String]?) -> RankingUpdate {
        let diff = previous.map { RowDiff(previous: $0, current: ids) }
        return RankingUpdate(
            order: ids,
            names: names,
            distances: distances,
            changed: previous.map { ids != $0 } ?? true,
            moves: diff?.moves ?? [],
            inserted: diff?.inserted ?? ids,
            deleted: diff?.deleted ?? [],
            nearest: nearest?.id,
            nearestDistance: nearest?.distance
        )
    }

    /// A distance as a table cell shows it: "85 m" under a kilometre, "1.2 km" under 100 km, "123 km" beyond.
    public static func display(_ metres: Double) -> String {
        if metres < 999.5 { return "\(Int(metres.rounded())) m" }
        if metres < 99_950 { return String(format: "%.1f km", metres / 1000) }
        return "\(Int((metres / 1000).rounded())) km"
    }
}
