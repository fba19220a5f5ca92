/// The fewest row moves (plus inserts and deletes) between two orders of ids.
///
/// The places common to both orders that keep their relative order form a
/// longest increasing subsequence of their old positions; every other common
/// place moves once. No list of moves can be shorter: a place that does not
/// move keeps its relative order with every other one that does not, so the
/// unmoved places always form an increasing subsequence.
public struct RowDiff: Equatable, Sendable {
    public var moves: [RowMove]
    public var inserted: [String]
    public var deleted: [String]

    /// Moves alone, between two orders of the same ids.
    public init(moves: [RowMove]) {
        self.moves = moves
        inserted = []
        deleted = []
    }

    public init(previous: [String], current: [String]) {
        var oldIndex: [String: Int] = [:]
        oldIndex.reserveCapacity(previous.count)
        for (i, id) in previous.enumerated() { oldIndex[id] = i }
        let currentSet = Set(current)
        deleted = previous.filter { !currentSet.contains($0) }
        inserted = current.filter { oldIndex[$0] == nil }
        // Old positions of the common places, in their new order.
        var common: [(to: Int, from: Int)] = []
        common.reserveCapacity(current.count)
        for (to, id) in current.enumerated() {
            if let from = oldIndex[id] { common.append((to, from)) }
        }
        let keep = Self.longestIncreasing(common.map(\.from))
        moves = []
        for (k, pair) in common.enumerated() where !keep[k] {
            moves.append(RowMove(from: pair.from, to: pair.to))
        }
    }

    /// Marks one longest strictly increasing subsequence (patience sorting, O(n log n)).
    static func longestIncreasing(_ values: [Int]) -> [Bool] {
        var tails: [Int] = []          // index into values of the smallest tail of each length
        var parent = [Int](repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { parent[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var keep = [Bool](repeating: false, count: values.count)
        var k = tails.last ?? -1
        while k >= 0 {
            keep[k] = true
            k = parent[k]
        }
        return keep
    }

    /// Applies moves, deletes and inserts to `previous` as a table view would; gives `current`
    /// when the diff was made from those two orders (`current` supplies where inserts go).
    public static func apply(_ diff: RowDiff, to previous: [String], current: [String]) -> [String] {
        let moved = Set(diff.moves.map { previous[$0.from] })
        let deletedSet = Set(diff.deleted)
        let staying = previous.filter { !moved.contains($0) && !deletedSet.contains($0) }
        var result = [String?](repeating: nil, count: current.count)
        for m in diff.moves { result[m.to] = previous[m.from] }
        let insertedSet = Set(diff.inserted)
        for (i, id) in current.enumerated() where insertedSet.contains(id) { result[i] = id }
        var next = staying.makeIterator()
        for i in result.indices where result[i] == nil { result[i] = next.next() }
        return result.compactMap { $0 }
    }
}
