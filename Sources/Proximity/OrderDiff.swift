/// Minimal row moves between two orders of the same place indices, for
/// large lists: integer positions and reused buffers instead of ids and
/// dictionaries (``RowDiff`` does the same for ids, with inserts and deletes).
public struct OrderDiff {
    private var position: [UInt32] = []
    private var sequence: [UInt32] = []
    private var tails: [Int32] = []
    private var parent: [Int32] = []
    private var keep: [Bool] = []

    public init() {}

    /// Writes the fewest moves turning `previous` into `current` (both permutations of 0..<n) into `moves`.
    public mutating func moves(from previous: [UInt32], to current: [UInt32], into moves: inout [RowMove]) {
        moves.removeAll(keepingCapacity: true)
        let n = current.count
        guard previous.count == n, n > 0 else { return }
        if position.count < n {
            position = [UInt32](repeating: 0, count: n)
            sequence = position
            parent = [Int32](repeating: -1, count: n)
            keep = [Bool](repeating: false, count: n)
        }
        for (r, p) in previous.enumerated() { position[Int(p)] = UInt32(r) }
        for r in 0..<n { sequence[r] = position[Int(current[r])] }
        // Patience sorting: tails[len] is the index of the smallest tail of an increasing run of length len + 1.
        tails.removeAll(keepingCapacity: true)
        sequence.withUnsafeBufferPointer { s in
            parent.withUnsafeMutableBufferPointer { par in
                for i in 0..<n {
                    let v = s[i]
                    var lo = 0, hi = tails.count
                    while lo < hi {
                        let mid = (lo + hi) >> 1
                        if s[Int(tails[mid])] < v { lo = mid + 1 } else { hi = mid }
                    }
                    par[i] = lo > 0 ? tails[lo - 1] : -1
                    if lo == tails.count { tails.append(Int32(i)) } else { tails[lo] = Int32(i) }
                }
            }
        }
        for i in 0..<n { keep[i] = false }
        var k = tails.last.map(Int.init) ?? -1
        while k >= 0 {
            keep[k] = true
            k = Int(parent[k])
        }
        for r in 0..<n where !keep[r] { moves.append(RowMove(from: Int(sequence[r]), to: r)) }
    }
}
