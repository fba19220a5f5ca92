/// The ids and names of the places a ranking lists, by place index, shared
/// (not copied) by every update of one ``ProximityEngine``: an update holds
/// its rows as indices into this table, and its ids and names are read
/// through it. Their UTF-8 is also kept back to back, so that an update's
/// rows can be written out without touching a `String`.
public final class RankedPlaces: Sendable {
    /// Place ids by index.
    public let ids: [String]
    /// Place names by index (as many as ``ids``).
    public let names: [String]
    /// The ids' UTF-8 back to back, then the names': string `k` (ids first,
    /// then names, so name `i` is string `ids.count + i`) is
    /// `utf8[starts[k]..<starts[k + 1]]`. Followed by ``padding`` zero bytes, so
    /// that a string can be copied in whole words.
    private let utf8: [UInt8]
    private let starts: [UInt32]
    /// The length in bytes of the longest string.
    public let longest: Int
    /// Whether no string holds a control character, a quotation mark or a
    /// backslash: every string can be copied into JSON or CSV as it is.
    public let plain: Bool
    /// Zero bytes after the last string.
    public static let padding = 16

    /// A table of `ids` and `names` (one name per id).
    public init(ids: [String], names: [String]) {
        precondition(ids.count == names.count, "one name per id")
        self.ids = ids
        self.names = names
        var utf8: [UInt8] = [], starts: [UInt32] = [0], longest = 0, special: UInt8 = 0
        starts.reserveCapacity(2 * ids.count + 1)
        for s in ids + names {
            for b in s.utf8 {
                special |= (b < 0x20 ? 1 : 0) | (b == UInt8(ascii: "\"") ? 1 : 0) | (b == UInt8(ascii: "\\") ? 1 : 0)
                utf8.append(b)
            }
            longest = max(longest, utf8.count - Int(starts[starts.count - 1]))
            starts.append(UInt32(truncatingIfNeeded: utf8.count))
        }
        utf8.append(contentsOf: repeatElement(0, count: Self.padding))
        self.utf8 = utf8
        self.starts = starts
        self.longest = longest
        plain = special == 0
    }

    /// Lends the table's UTF-8 and the start of each string in it: id `i` is
    /// `utf8[starts[i]..<starts[i + 1]]`, name `i` the same at `ids.count + i`;
    /// ``padding`` zero bytes follow the last string.
    public func withUTF8<R>(_ body: (_ utf8: UnsafeBufferPointer<UInt8>, _ starts: UnsafeBufferPointer<UInt32>) throws -> R) rethrows -> R {
        try utf8.withUnsafeBufferPointer { u in try starts.withUnsafeBufferPointer { s in try body(u, s) } }
    }
}

/// What one delivered location did to the sorted list.
///
/// Rows are held as place indices into ``places`` (``rows``, ``insertedRows``,
/// ``deletedRows``); ``order``, ``names``, ``inserted``, ``deleted`` and
/// ``nearest`` read their strings through it when asked. An engine writes
/// each update into buffers of its own that take turns: once an update has
/// been let go, the one two updates later reuses its storage.
public struct RankingUpdate: Equatable, Sendable {
    /// The ids and names the rows index.
    public let places: RankedPlaces
    /// Place indices (into ``places``), first row first.
    public private(set) var rows: [UInt32]
    /// Place indices that joined the list since the previous update.
    public private(set) var insertedRows: [UInt32]
    /// Place indices that left the list since the previous update.
    public private(set) var deletedRows: [UInt32]
    /// The nearest place's index, -1 for none.
    public private(set) var nearestRow: Int32
    /// Geodesic distances in metres, in `order`.
    public var distances: [Double]
    /// Whether `order` differs from the previous update's (always true for the first).
    public var changed: Bool
    /// The fewest row moves that turn the previous order into this one
    /// (places not listed keep their relative order).
    public var moves: [RowMove]
    /// The nearest place's distance in metres.
    public var nearestDistance: Double?
    private var givenDisplayDistances: [String]?

    /// Place ids, first row first.
    public var order: [String] {
        get { rows.map { places.ids[Int($0)] } }
        set { self = with(order: newValue) }
    }

    /// Place names, in `order`.
    public var names: [String] {
        get { rows.map { places.names[Int($0)] } }
        set { self = with(names: newValue) }
    }

    /// Ids that joined the list since the previous update.
    public var inserted: [String] {
        get { insertedRows.map { places.ids[Int($0)] } }
        set { self = with(inserted: newValue) }
    }

    /// Ids that left the list since the previous update.
    public var deleted: [String] {
        get { deletedRows.map { places.ids[Int($0)] } }
        set { self = with(deleted: newValue) }
    }

    /// The nearest place's id (whatever the sort mode), nil for an empty list.
    public var nearest: String? {
        get { nearestRow >= 0 ? places.ids[Int(nearestRow)] : nil }
        set { self = with(nearest: newValue) }
    }

    /// "85 m", "1.2 km": as a table cell shows them (``ProximityEngine/display(_:)``
    /// of each distance, made when asked, unless the update was made with its own).
    public var displayDistances: [String] {
        get { givenDisplayDistances ?? distances.map(ProximityEngine.display) }
        set { givenDisplayDistances = newValue }
    }

    /// An update; `displayDistances` nil shows each distance as ``ProximityEngine/display(_:)`` does.
    public init(order: [String], names: [String], distances: [Double], displayDistances: [String]? = nil, changed: Bool,
                moves: [RowMove], inserted: [String], deleted: [String], nearest: String?, nearestDistance: Double?) {
        // One table for every string: the rows, then the inserted, deleted and nearest ids (with empty names).
        let ids = order + inserted + deleted + (nearest.map { [$0] } ?? [])
        places = RankedPlaces(ids: ids, names: Array((names + Array(repeating: "", count: max(0, ids.count - names.count))).prefix(ids.count)))
        let n = order.count
        rows = (0..<n).map { UInt32(truncatingIfNeeded: $0) }
        insertedRows = inserted.indices.map { UInt32(truncatingIfNeeded: n + $0) }
        deletedRows = deleted.indices.map { UInt32(truncatingIfNeeded: n + inserted.count + $0) }
        nearestRow = nearest == nil ? -1 : Int32(truncatingIfNeeded: n + inserted.count + deleted.count)
        self.distances = distances
        givenDisplayDistances = displayDistances
        self.changed = changed
        self.moves = moves
        self.nearestDistance = nearestDistance
    }

    /// An update whose rows index `places` (an engine's own, made without copying a string).
    init(places: RankedPlaces, rows: [UInt32], distances: [Double], changed: Bool, moves: [RowMove],
         insertedRows: [UInt32], deletedRows: [UInt32], nearestRow: Int32, nearestDistance: Double?) {
        self.places = places
        self.rows = rows
        self.distances = distances
        self.changed = changed
        self.moves = moves
        self.insertedRows = insertedRows
        self.deletedRows = deletedRows
        self.nearestRow = nearestRow
        self.nearestDistance = nearestDistance
    }

    private func with(order: [String]? = nil, names: [String]? = nil, inserted: [String]? = nil, deleted: [String]? = nil,
                      nearest: String?? = nil) -> RankingUpdate {
        RankingUpdate(order: order ?? self.order, names: names ?? self.names, distances: distances, displayDistances: givenDisplayDistances,
                      changed: changed, moves: moves, inserted: inserted ?? self.inserted, deleted: deleted ?? self.deleted,
                      nearest: nearest ?? self.nearest, nearestDistance: nearestDistance)
    }

    /// Equal when every row, distance, move and flag is: the same strings, whichever table holds them.
    public static func == (a: RankingUpdate, b: RankingUpdate) -> Bool {
        a.changed == b.changed && a.distances == b.distances && a.moves == b.moves && a.nearestDistance == b.nearestDistance
            && a.givenDisplayDistances == b.givenDisplayDistances && a.nearest == b.nearest
            && (a.places === b.places ? a.rows == b.rows && a.insertedRows == b.insertedRows && a.deletedRows == b.deletedRows
                : a.order == b.order && a.names == b.names && a.inserted == b.inserted && a.deleted == b.deleted)
    }
}
