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
        let n = values.count
        var keep = [Bool](repeating: false, count: n)
        guard n > 0 else { return keep }
        // Patience sorting. `tail[k]` is the index of the smallest last value of an increasing run
        // of length k + 1 and `tailValue[k]` that value (increasing in k); a value goes where the
        // first tail not below it is. Between two orders of a walk most rows keep their order, so
        // that place is looked for from the end, in steps that double, then halved: the same
        // place a binary search over all the tails finds, in a few steps instead of log n.
        var parent = [Int](repeating: -1, count: n)
        var tail = [Int](repeating: 0, count: n), tailValue = [Int](repeating: 0, count: n)
        var count = 0
        values.withUnsafeBufferPointer { values in
            parent.withUnsafeMutableBufferPointer { parent in
                tail.withUnsafeMutableBufferPointer { tail in
                    tailValue.withUnsafeMutableBufferPointer { tailValue in
                        for i in 0..<n {
                            let v = values[i]
                            var lo = count
                            if count > 0 && tailValue[count - 1] >= v {
                                // tailValue[hi] >= v; find the first such place at or below hi.
                                var hi = count - 1, step = 1, below = hi - 1
                                while below >= 0 && tailValue[below] >= v {
                                    hi = below
                                    step &*= 2
                                    below = hi - step
                                }
                                var l = max(below + 1, 0)
                                while l < hi {
                                    let mid = (l + hi) >> 1
                                    if tailValue[mid] < v { l = mid + 1 } else { hi = mid }
                                }
                                lo = l
                            }
                            if lo > 0 { parent[i] = tail[lo - 1] }
                            tail[lo] = i
                            tailValue[lo] = v
                            if lo == count { count += 1 }
                        }
                    }
                }
            }
        }
        var k = count > 0 ? tail[count - 1] : -1
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
