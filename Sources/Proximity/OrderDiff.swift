/// Minimal row moves between two orders of the same place indices, for
/// large lists: integer positions and reused buffers instead of ids and
/// dictionaries (``RowDiff`` does the same for ids, with inserts and deletes).
public struct OrderDiff {
    private var position: [UInt32] = []
    private var sequence: [UInt32] = []
    private var tails: [Int32] = []
    private var tailValues: [UInt32] = []
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
        if tails.count < n {
            tails = [Int32](repeating: 0, count: n)
            tailValues = [UInt32](repeating: 0, count: n)
        }
        var length = 0
        sequence.withUnsafeBufferPointer { s in
            parent.withUnsafeMutableBufferPointer { par in
                tails.withUnsafeMutableBufferPointer { ti in
                    tailValues.withUnsafeMutableBufferPointer { tv in
                        for i in 0..<n {
                            let v = s[i]
                            var lo: Int
                            if length == 0 || tv[length - 1] < v {
                                lo = length
                            } else {
                                // Gallop back from the end, where a nearly sorted sequence inserts
                                // and where the tails are still in cache; then bisect that window.
                                var step = 1
                                var high = length - 1          // tv[high] >= v
                                var low = high - step          // candidate with tv[low] < v
                                while low >= 0 && tv[low] >= v {
                                    high = low
                                    step <<= 1
                                    low = high - step
                                }
                                // Branch-free lower bound in [first, high], knowing tv[high] >= v.
                                var base = max(low + 1, 0), size = high &- base &+ 1
                                while size > 1 {
                                    let half = size >> 1
                                    base = tv[base &+ half] < v ? base &+ half : base
                                    size &-= half
                                }
                                lo = base &+ (tv[base] < v ? 1 : 0)
                            }
                            par[i] = lo > 0 ? ti[lo - 1] : -1
                            ti[lo] = Int32(i)
                            tv[lo] = v
                            if lo == length { length += 1 }
                        }
                    }
                }
            }
        }
        for i in 0..<n { keep[i] = false }
        var k = length > 0 ? Int(tails[length - 1]) : -1
        while k >= 0 {
            keep[k] = true
            k = Int(parent[k])
        }
        for r in 0..<n where !keep[r] { moves.append(RowMove(from: Int(sequence[r]), to: r)) }
    }
}
