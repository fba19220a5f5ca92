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

/// Recomputes and re-sorts distances to a set of places on every update.
///
/// Order (the command-line contract): ascending WGS84 geodesic distance
/// rounded to the whole millimetre, then name in Unicode scalar order, then
/// id, so every machine and run agree. Distances come from the chord formula
/// (``Geodesy/GeodesicDistanceFrame``, within 1e-6 m of Karney's geodesic up to 20 km,
/// Karney's method beyond); a distance within that tolerance of a half
/// millimetre, where rounding could go either way, is recomputed with
/// Karney's method, so the order is exactly the geodesic one.
/// Allocation: an update's rows, distances, moves, inserts and deletes are
/// written into buffers the engine keeps, two of each taking turns (the
/// update just returned holds one); once the update before it has been let
/// go, nothing is allocated per update. Lists of the same places as the last
/// one, below ``OrderDiff/splitFrom`` rows, find their moves with
/// ``OrderDiff`` (the rows patience sorting over arrays keeps, as ``RowDiff`` finds).
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
    /// Each place's rank by name, then id: its place among places at the same millimetre.
    private var tieRank: [Int64] = []
    /// The order's one comparison: millimetres above the tie rank (``keyShift`` bits).
    private var keys: [Int64] = []
    /// The place of each tie rank when no two places share one (ids differ):
    /// then a key alone names its place, and the keys are sorted as plain
    /// integers, not through the places' indices. Nil when two share one.
    private var placeOfTieRank: [UInt32]?
    /// The active places' keys in a list's order, kept between updates.
    private var sortKeys: [Int64] = []
    /// Lists still to sort in full before insertion sort is tried again.
    private var skipsInsertionSort = 0
    private var radixScratch: [Int64] = []
    private var radixCounts: [Int] = []
    /// The places' ids and names by index, shared with every update.
    private var table: RankedPlaces
    /// The last list's place indices (shared with the update that returned them).
    private var order: [UInt32] = []
    /// The ids of the last list, when the places have been replaced since (``setPlaces(_:)``).
    private var replacedIDs: [String]?
    private var isFirst = true
    /// The places listed by the update being made, in index order.
    private var active: [UInt32] = []
    /// Marks by place index: `mark` for a place listed now, `mark + 1` once placed in the new list.
    private var marks: [UInt32] = []
    private var mark: UInt32 = 0
    /// Each place's row in the previous list during a diff (-1 when not in it).
    private var previousRow: [Int] = []
    private var from: [Int] = []
    private var to: [Int] = []
    private var diff = OrderDiff()
    private var rowBuffers = TakingTurns<UInt32>()
    private var distanceBuffers = TakingTurns<Double>()
    private var moveBuffers = TakingTurns<RowMove>()
    private var insertedBuffers = TakingTurns<UInt32>()
    private var deletedBuffers = TakingTurns<UInt32>()
    private let geodesic: Geodesic

    public init(places: [Place], sortMode: SortMode = .distance, geodesic: Geodesic = .wgs84) {
        self.places = places
        self.sortMode = sortMode
        self.geodesic = geodesic
        ecef = []
        nameRank = []
        idRank = []
        distances = []
        table = RankedPlaces(ids: [], names: [])
        diff.threads = 1
        rebuildIndex()
    }

    /// Replaces the set of places; the next update reports what was inserted and deleted.
    public mutating func setPlaces(_ newPlaces: [Place]) {
        if !isFirst { replacedIDs = replacedIDs ?? order.map { table.ids[Int($0)] } }
        places = newPlaces
        rebuildIndex()
        order = []
    }

    private mutating func rebuildIndex() {
        ecef = places.map { geodesic.ellipsoid.ecef($0.coordinate) }
        nameRank = Self.ranks(places.map(\.name))
        idRank = Self.ranks(places.map(\.id))
        distances = Array(repeating: 0, count: places.count)
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
            var place = [UInt32](repeating: 0, count: places.count)
            for i in places.indices { place[Int(tieRank[i])] = UInt32(truncatingIfNeeded: i) }
            placeOfTieRank = place
        }
        table = RankedPlaces(ids: places.map(\.id), names: places.map(\.name))
        marks = Array(repeating: 0, count: places.count)
        mark = 0
        previousRow = []
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
        update(from: GeodesicDistanceFrame(origin: coordinate, geodesic: geodesic))
    }

    /// The list as it stands for a walker at `frame`'s origin, the frame made
    /// with this engine's geodesic (engines ranking from the same fix can share one).
    public mutating func update(from frame: GeodesicDistanceFrame) -> RankingUpdate {
        let coordinate = frame.origin
        let n = places.count
        // Every distance and key in one pass over the places' buffers; Karney's
        // method beyond the chord's range and where a half millimetre is too close to call.
        let places = self.places, geodesic = self.geodesic
        self.ecef.withUnsafeBufferPointer { ecef in
            self.distances.withUnsafeMutableBufferPointer { distances in
                self.keys.withUnsafeMutableBufferPointer { keys in
                    self.tieRank.withUnsafeBufferPointer { tieRank in
                        for i in 0..<n {
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
                            keys[i] = Int64((d * 1000).rounded()) << Self.keyShift | tieRank[i]
                        }
                    }
                }
            }
        }
        // The places listed: all of them unless a radius or a predicate leaves some out
        // (listed one by one where the list starts afresh, and for the nearest by name order).
        active.removeAll(keepingCapacity: true)
        let filtered = maximumRadius != nil || predicate != nil
        if filtered || order.count != n || sortMode == .name {
            for i in 0..<n {
                if let r = maximumRadius, distances[i] > r { continue }
                if let predicate, !predicate(places[i]) { continue }
                active.append(UInt32(truncatingIfNeeded: i))
            }
        }
        let activeCount = filtered ? active.count : n
        // Start from the previous order (kept places first, in their order): the
        // sorts below are fast on nearly sorted input.
        var candidate = rowBuffers.take()
        if activeCount == n && order.count == n {
            candidate.append(contentsOf: order)
        } else {
            if mark >= UInt32.max - 2 {
                for i in marks.indices { marks[i] = 0 }
                mark = 0
            }
            mark += 2
            for i in active { marks[Int(i)] = mark }
            for i in order where marks[Int(i)] == mark {
                candidate.append(i)
                marks[Int(i)] = mark + 1
            }
            for i in active where marks[Int(i)] == mark { candidate.append(i) }
        }
        // One comparison of 64-bit keys (millimetres, then name, then id), read
        // from local arrays: the same order as comparing the three in turn.
        let keys = self.keys, tieRank = self.tieRank
        switch sortMode {
        case .distance:
            if let placeOfTieRank {
                Self.gather(keys, at: candidate, into: &sortKeys, zero: 0)
                // After a list that needed the full sort, the next is sorted in full too
                // (an attempt at insertion sort would only be thrown away), trying again every 16th list.
                if skipsInsertionSort > 0 {
                    skipsInsertionSort -= 1
                    fullSort()
                } else if !Self.sortNearlySorted(&sortKeys, fallback: false) {
                    skipsInsertionSort = 15
                    fullSort()
                }
                let mask: Int64 = (1 << Self.keyShift) - 1
                sortKeys.withUnsafeBufferPointer { sorted in
                    placeOfTieRank.withUnsafeBufferPointer { place in
                        candidate.withUnsafeMutableBufferPointer { rows in
                            for k in rows.indices { rows[k] = place[Int(sorted[k] & mask)] }
                        }
                    }
                }
            } else {
                candidate.sort { keys[Int($0)] < keys[Int($1)] }
            }
        case .name:
            candidate.sort { tieRank[Int($0)] < tieRank[Int($1)] }
        }
        var shown = distanceBuffers.take()
        Self.gather(distances, at: candidate, into: &shown, zero: 0)
        let nearestIndex = sortMode == .distance ? candidate.first : active.min { keys[Int($0)] < keys[Int($1)] }
        let nearestDistance = nearestIndex.map { distances[Int($0)] }
        var moves = moveBuffers.take(), inserted = insertedBuffers.take(), deleted = deletedBuffers.take()
        var changed = true
        if let replaced = replacedIDs {
            // New places since the last list: the diff by id, its strings in a table of their own.
            replacedIDs = nil
            order = candidate
            return Self.update(order: candidate.map { table.ids[Int($0)] }, names: candidate.map { table.names[Int($0)] }, distances: shown,
                               nearest: nearestIndex.map { (table.ids[Int($0)], distances[Int($0)]) }, previous: replaced)
        }
        if isFirst {
            inserted.append(contentsOf: candidate)
        } else if order == candidate {
            changed = false
        } else if order.count == places.count && candidate.count == places.count && candidate.count < OrderDiff.splitFrom {
            // The same places, all of them: a permutation of 0..<n.
            diff.moves(from: order, to: candidate, into: &moves)
        } else {
            indexDiff(previous: order, current: candidate, moves: &moves, inserted: &inserted, deleted: &deleted)
        }
        isFirst = false
        order = candidate
        rowBuffers.handOut(candidate)
        distanceBuffers.handOut(shown)
        moveBuffers.handOut(moves)
        insertedBuffers.handOut(inserted)
        deletedBuffers.handOut(deleted)
        return RankingUpdate(places: table, rows: candidate, distances: shown, changed: changed, moves: moves,
                             insertedRows: inserted, deletedRows: deleted,
                             nearestRow: nearestIndex.map { Int32(truncatingIfNeeded: $0) } ?? -1, nearestDistance: nearestDistance)
    }

    /// `values[i]` for each `i` of `rows`, in order, into `out` (emptied, its
    /// room kept): one pass over the buffers, not an append per row.
    static func gather<T>(_ values: [T], at rows: [UInt32], into out: inout [T], zero: T) {
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: repeatElement(zero, count: rows.count))
        values.withUnsafeBufferPointer { values in
            rows.withUnsafeBufferPointer { rows in
                out.withUnsafeMutableBufferPointer { out in
                    for k in rows.indices { out[k] = values[Int(rows[k])] }
                }
            }
        }
    }

    /// Sorts `keys`, which start in the previous update's order: between two
    /// fixes of a walk few places pass one another, so insertion sort does it
    /// in one pass and a few shifts; past a budget of shifts (a jump across
    /// the map) the standard library's sort takes over. Distinct keys have
    /// one sorted order, whichever sort gives it. Returns false when the
    /// budget ran out (and, without `fallback`, the keys are left unsorted).
    @discardableResult
    static func sortNearlySorted(_ keys: inout [Int64], fallback: Bool = true) -> Bool {
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
        if !done && fallback { keys.sort() }
        return done
    }

    /// Sorts ``sortKeys`` in full: the standard sort for a short list; when the
    /// list holds every place and no two share a tie rank, the keys read again
    /// in tie order and sorted by their millimetres alone
    /// (``radixSortByMillimetres(_:scratch:counts:)``); else
    /// ``radixSort(_:scratch:counts:tieBits:)`` with the tie ranks' bits.
    private mutating func fullSort() {
        guard sortKeys.count >= 256 else { return sortKeys.sort() }
        if sortKeys.count == places.count, let placeOfTieRank {
            Self.gather(keys, at: placeOfTieRank, into: &sortKeys, zero: 0)
            if Self.radixSortByMillimetres(&sortKeys, scratch: &radixScratch, counts: &radixCounts) { return }
        }
        Self.radixSort(&sortKeys, scratch: &radixScratch, counts: &radixCounts, tieBits: Int.bitWidth - (places.count - 1).leadingZeroBitCount)
    }

    /// Sorts keys that start in tie order by their millimetres alone, when
    /// these are below 2^24 (16.7 km): a stable least-significant-digit radix
    /// sort of two 12-bit digits, both digits counted in one pass, so that keys
    /// of the same millimetre stay in tie order, the order of the whole key.
    /// Returns false, the keys untouched, when a millimetre needs more digits.
    static func radixSortByMillimetres(_ keys: inout [Int64], scratch: inout [Int64], counts: inout [Int]) -> Bool {
        let n = keys.count, digitBits: Int64 = 12, buckets = 1 << digitBits, mask = Int64(buckets - 1)
        if scratch.count < n { scratch = [Int64](repeating: 0, count: n) }
        if counts.count < 2 * buckets { counts = [Int](repeating: 0, count: 2 * buckets) }
        return keys.withUnsafeMutableBufferPointer { keys in
            scratch.withUnsafeMutableBufferPointer { scratch in
                counts.withUnsafeMutableBufferPointer { counts in
                    guard let k = keys.baseAddress, let s = scratch.baseAddress, let c = counts.baseAddress else { return false }
                    c.update(repeating: 0, count: 2 * buckets)
                    var any: Int64 = 0
                    for i in 0..<n {
                        let mm = k[i] >> keyShift
                        any |= mm
                        c[Int(mm & mask)] += 1
                        c[buckets + Int((mm >> digitBits) & mask)] += 1
                    }
                    guard any < 1 << (2 * digitBits) else { return false }
                    var low = 0, high = 0
                    for d in 0..<buckets {
                        let a = c[d], b = c[buckets + d]
                        c[d] = low
                        c[buckets + d] = high
                        low += a
                        high += b
                    }
                    for i in 0..<n {
                        let key = k[i], d = Int((key >> keyShift) & mask)
                        s[c[d]] = key
                        c[d] += 1
                    }
                    for i in 0..<n {
                        let key = s[i], d = buckets + Int((key >> (keyShift + digitBits)) & mask)
                        k[c[d]] = key
                        c[d] += 1
                    }
                    return true
                }
            }
        }
    }

    /// Sorts keys of millimetres above ``keyShift`` bits of tie rank, every
    /// tie rank below `2^tieBits`: the keys packed to their bits in use
    /// (millimetres above `tieBits`), a least-significant-digit radix sort of
    /// 11-bit digits (a digit every key shares is skipped), then unpacked.
    /// Between two fixes at thousands of places most rows move, and this
    /// costs a few passes where a comparison sort costs `log n`.
    static func radixSort(_ keys: inout [Int64], scratch: inout [Int64], counts: inout [Int], tieBits: Int) {
        let n = keys.count, tieMask: Int64 = (1 << tieBits) - 1, digitBits = 11, buckets = 1 << digitBits
        if scratch.count < n { scratch = [Int64](repeating: 0, count: n) }
        if counts.count < buckets { counts = [Int](repeating: 0, count: buckets) }
        var largest: Int64 = 0
        keys.withUnsafeMutableBufferPointer { k in
            for i in 0..<n {
                let packed = (k[i] >> keyShift) << tieBits | (k[i] & tieMask)
                k[i] = packed
                largest = max(largest, packed)
            }
        }
        let bits = Int64.bitWidth - largest.leadingZeroBitCount
        var shift = 0, inScratch = false
        keys.withUnsafeMutableBufferPointer { keys in
            scratch.withUnsafeMutableBufferPointer { scratch in
                counts.withUnsafeMutableBufferPointer { counts in
                    guard var from = keys.baseAddress, var to = scratch.baseAddress, let counts = counts.baseAddress else { return }
                    let mask = Int64(buckets - 1)
                    while shift < bits {
                        counts.update(repeating: 0, count: buckets)
                        for i in 0..<n { counts[Int((from[i] >> Int64(shift)) & mask)] += 1 }
                        // A digit every key shares orders nothing.
                        if counts[Int((from[0] >> Int64(shift)) & mask)] != n {
                            var sum = 0
                            for d in 0..<buckets {
                                let c = counts[d]
                                counts[d] = sum
                                sum += c
                            }
                            for i in 0..<n {
                                let k = from[i], d = Int((k >> Int64(shift)) & mask)
                                to[counts[d]] = k
                                counts[d] += 1
                            }
                            swap(&from, &to)
                            inScratch.toggle()
                        }
                        shift += digitBits
                    }
                    if inScratch { to.update(from: from, count: n) }
                }
            }
        }
        keys.withUnsafeMutableBufferPointer { k in
            for i in 0..<n { k[i] = (k[i] >> tieBits) << keyShift | (k[i] & tieMask) }
        }
    }

    /// ``RowDiff`` between two different lists of these places by their
    /// indices: the fewest row moves, and the places that joined and left.
    private mutating func indexDiff(previous: [UInt32], current: [UInt32], moves: inout [RowMove], inserted: inout [UInt32], deleted: inout [UInt32]) {
        if previousRow.count != places.count { previousRow = [Int](repeating: -1, count: places.count) }
        for (row, i) in previous.enumerated() { previousRow[Int(i)] = row }
        from.removeAll(keepingCapacity: true)
        to.removeAll(keepingCapacity: true)
        for (row, i) in current.enumerated() {
            let old = previousRow[Int(i)]
            if old < 0 {
                inserted.append(i)
            } else {
                from.append(old)
                to.append(row)
                previousRow[Int(i)] = -2
            }
        }
        for i in previous where previousRow[Int(i)] >= 0 { deleted.append(i) }
        for i in previous { previousRow[Int(i)] = -1 }
        let keep = RowDiff.longestIncreasing(from)
        for k in keep.indices where !keep[k] { moves.append(RowMove(from: from[k], to: to[k])) }
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
