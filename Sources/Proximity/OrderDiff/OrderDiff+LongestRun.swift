import Foundation

/// OrderDiff's longest increasing run of old rows: patience sorting over sets of tails, whole or in two halves joined.
extension OrderDiff {
    /// Patience sorting over all of `space.sequence`: fills `space.parent`, returns the last old row of a longest run.
    static func longestRun(_ space: Workspace) -> Int {
        let n = space.n, s = UnsafePointer(space.sequence), par = space.parent
        if n <= 64 { return patience(s, n, par) }
        space.trees.clear(0)
        let tree = space.trees.tree(0)
        if n <= 4096 { return patience(s, n, par, low: tree.words + tree.start[0], lowWords: tree.count[0]) }
        return patience(s, n, par, tree)
    }

    /// The longest run as the first half's run forwards joined to the second half's
    /// run backwards (see the type's notes); marks its old rows in `space.keep`.
    static func longestRunInHalves(_ space: Workspace, _ parallel: Bool) {
        let n = space.n, middle = cut(n)
        let sa = Address(UnsafePointer(space.sequence)), sb = Address(UnsafePointer(space.mirrored))
        let pa = Address(space.parent), pb = Address(space.parentBack), trees = space.trees
        if parallel && n >= halvesOnThreadsFrom {
            DispatchQueue.concurrentPerform(iterations: 2) { t in
                if t == 0 {
                    sortHalf(trees, 0, sa.pointer, middle, pa.pointer)
                } else {
                    sortHalf(trees, 1, sb.pointer, n - middle, pb.pointer)
                }
            }
        } else {
            trees.clear(0)
            trees.clear(1)
            patience(sa.pointer, middle, pa.pointer, trees.tree(0), sb.pointer, n - middle, pb.pointer, trees.tree(1))
        }
        _ = joinHalves(space, tailsForward(space), tailsBackward(space))
    }

    /// The tails of the first half in ascending old rows, written to `space.position`'s first
    /// ``cut(_:)`` slots (free once the halves' old rows are known); returns how many.
    static func tailsForward(_ space: Workspace) -> Int {
        tailsForward(space.trees, space.position)
    }

    private static func tailsForward(_ trees: Trees, _ tails: UnsafeMutablePointer<UInt32>) -> Int {
        let forward = trees.tree(0)
        var count = 0
        for w in 0..<forward.count[0] {
            var word = forward.words[forward.start[0] + w]
            while word != 0 {
                tails[count] = UInt32(truncatingIfNeeded: w << 6 | word.trailingZeroBitCount)
                count += 1
                word &= word &- 1
            }
        }
        return count
    }

    /// The tails of the second half as old rows, ascending, written to `space.position`
    /// from slot ``cut(_:)`` on; returns how many.
    private static func tailsBackward(_ space: Workspace) -> Int {
        tailsBackward(space.trees, space.n, space.position + cut(space.n))
    }

    static func tailsBackward(_ trees: Trees, _ n: Int, _ tails: UnsafeMutablePointer<UInt32>) -> Int {
        let backward = trees.tree(1)
        var count = 0
        for w in stride(from: backward.count[0] - 1, through: 0, by: -1) {
            var word = backward.words[backward.start[0] + w]
            while word != 0 {
                let high = 63 - word.leadingZeroBitCount
                tails[count] = UInt32(truncatingIfNeeded: n - 1 - (w << 6 | high))
                count += 1
                word &= ~(UInt64(1) &<< UInt64(high))
            }
        }
        return count
    }

    /// After both halves are sorted and their tails listed (``tailsForward(_:)``, ``tailsBackward(_:)``):
    /// joins their runs into a longest one (see the type's notes), marks its old rows in
    /// `space.keep`, and returns how many of them are in the first half.
    static func joinHalves(_ space: Workspace, _ countA: Int, _ countB: Int) -> Int {
        let n = space.n, middle = cut(n)
        let tailsA = space.position, tailsB = space.position + middle
        // The runs' lengths through every x, in ascending x: one more after a first-half tail, one
        // fewer after a second-half one; the first x with the largest sum, without a branch.
        var a = 0, b = 0, length = countB, best = countB, bestA = -1, bestB = 0
        while a < countA && b < countB {
            let va = Int(tailsA[a]), vb = Int(tailsB[b])
            let takeA = va < vb
            length += select(takeA, 1, -1)
            let better = takeA && length > best
            best = select(better, length, best)
            bestA = select(better, va, bestA)
            bestB = select(better, b, bestB)
            a += select(takeA, 1, 0)
            b += select(takeA, 0, 1)
        }
        // Second-half tails left only shorten the run; first-half ones left lengthen it to their last.
        if a < countA && length + (countA - a) > best {
            bestA = Int(tailsA[countA - 1])
            bestB = countB
        }
        // Both runs followed back at once: their old rows differ, so the two chains of loads overlap.
        let parent = space.parent, parentBack = space.parentBack, keep = space.keep
        var k = bestA, j = bestB < countB ? n - 1 - Int(tailsB[bestB]) : -1, keptA = 0
        while k >= 0 && j >= 0 {
            let v = n - 1 - j
            keep[k >> 6] |= UInt64(1) &<< UInt64(k & 63)
            keep[v >> 6] |= UInt64(1) &<< UInt64(v & 63)
            keptA += 1
            let p = parent[k], q = parentBack[j]
            k = p == .max ? -1 : Int(p)
            j = q == .max ? -1 : Int(q)
        }
        keptA += markKept(k, parent, keep) { $0 }
        markKept(j, parentBack, keep) { n - 1 - $0 }
        return keptA
    }

    /// Patience sorting of one half (`count` old rows of `s`) into tree `t`.
    @inline(never)
    static func sortHalf(_ trees: Trees, _ t: Int, _ s: UnsafePointer<UInt32>, _ count: Int, _ par: UnsafeMutablePointer<UInt32>) {
        trees.clear(t)
        _ = patience(s, count, par, trees.tree(t))
    }

    /// Marks the old rows of the run ending at `last` (followed through `parent`) in `keep`; `row` maps a value to its old row.
    @inline(__always)
    @discardableResult
    static func markKept(_ last: Int, _ parent: UnsafeMutablePointer<UInt32>, _ keep: UnsafeMutablePointer<UInt64>, _ row: (Int) -> Int) -> Int {
        var k = last, marked = 0
        while k >= 0 {
            let v = row(k)
            keep[v >> 6] |= UInt64(1) &<< UInt64(v & 63)
            marked += 1
            let p = parent[k]
            k = p == .max ? -1 : Int(p)
        }
        return marked
    }

    /// Patience sorting of up to 64 old rows with the tails as the bits of one word.
    private static func patience(_ s: UnsafePointer<UInt32>, _ n: Int, _ par: UnsafeMutablePointer<UInt32>) -> Int {
        var tails: UInt64 = 0
        for i in 0..<n {
            let v = Int(s[i])
            let bit = UInt64(1) &<< UInt64(v & 63)
            let above = tails & ~(bit | (bit &- 1)), below = tails & (bit &- 1)
            par[v] = below == 0 ? .max : UInt32(truncatingIfNeeded: 63 - below.leadingZeroBitCount)
            // The successor (the lowest member above v) leaves, v joins.
            tails = tails & ~(above & (0 &- above)) | bit
        }
        return tails == 0 ? -1 : 63 - tails.leadingZeroBitCount
    }

    /// Patience sorting of up to 4 096 old rows with the tails as bit words `low`
    /// (zero words before and after) under one summary word kept in a register:
    /// both neighbours of a value, and the update, without a branch.
    private static func patience(_ s: UnsafePointer<UInt32>, _ n: Int, _ par: UnsafeMutablePointer<UInt32>,
                                 low: UnsafeMutablePointer<UInt64>, lowWords: Int) -> Int {
        var summary: UInt64 = 0
        for i in 0..<n {
            let v = Int(s[i])
            let w = v >> 6, bit = UInt64(1) &<< UInt64(v & 63), wordBit = UInt64(1) &<< UInt64(w)
            let word = low[w]
            let above = word & ~(bit | (bit &- 1)), below = word & (bit &- 1)
            // The nearest non-empty words after and before w (past the ends: the zero words there).
            let afterWord = min((summary & ~(wordBit | (wordBit &- 1))).trailingZeroBitCount, lowWords)
            let beforeWord = 63 - (summary & (wordBit &- 1)).leadingZeroBitCount
            let successor = select(above == 0, afterWord << 6 + low[afterWord].trailingZeroBitCount,
                                   w << 6 + above.trailingZeroBitCount)
            let predecessor = select(below == 0, beforeWord << 6 + 63 - low[beforeWord].leadingZeroBitCount,
                                     w << 6 + 63 - below.leadingZeroBitCount)
            par[v] = UInt32(truncatingIfNeeded: select(predecessor < 0, -1, predecessor))     // -1: none
            // The successor leaves (none when it is past n: v extends the longest run), v joins.
            let exists = successor < n
            let removedWord = select(exists, successor >> 6, w)
            let clear = UInt64(truncatingIfNeeded: select(exists, -1, 0)) & UInt64(1) &<< UInt64(successor & 63)
            let left = low[removedWord] & ~clear
            low[removedWord] = left
            summary &= ~(UInt64(left == 0 ? 1 : 0) &<< UInt64(removedWord))
            low[w] |= bit
            summary |= wordBit
        }
        guard summary != 0 else { return -1 }
        let top = 63 - summary.leadingZeroBitCount
        return top << 6 + 63 - low[top].leadingZeroBitCount
    }

    /// Patience sorting of the `count` old rows `s` (distinct, within the tree's range) with the
    /// tails as a set; fills `par` and returns the last old row of a longest run.
    ///
    /// Each value goes through ``Run/addNear(_:)`` below ``wideFrom`` rows and
    /// ``Run/addThroughSummary(_:)`` from there on.
    private static func patience(_ s: UnsafePointer<UInt32>, _ count: Int, _ par: UnsafeMutablePointer<UInt32>, _ tree: BitTree) -> Int {
        var run = Run(tree: tree, par: par)
        if tree.count[0] &<< 6 >= wideFrom {
            for i in 0..<count { run.addThroughSummary(Int(s[i])) }
        } else {
            for i in 0..<count { run.addNear(Int(s[i])) }
        }
        return run.largest
    }

    /// Patience sorting of two halves at once on one thread, a value of each in
    /// turn: the two runs share nothing, so the processor works on both together
    /// (each value's steps depend on the one before it in its own half).
    private static func patience(_ a: UnsafePointer<UInt32>, _ countA: Int, _ parA: UnsafeMutablePointer<UInt32>, _ treeA: BitTree,
                                 _ b: UnsafePointer<UInt32>, _ countB: Int, _ parB: UnsafeMutablePointer<UInt32>, _ treeB: BitTree) {
        var runA = Run(tree: treeA, par: parA), runB = Run(tree: treeB, par: parB)
        let both = min(countA, countB)
        if treeA.count[0] &<< 6 >= wideFrom {
            for i in 0..<both {
                runA.addThroughSummary(Int(a[i]))
                runB.addThroughSummary(Int(b[i]))
            }
            for i in both..<countA { runA.addThroughSummary(Int(a[i])) }
            for i in both..<countB { runB.addThroughSummary(Int(b[i])) }
        } else {
            for i in 0..<both {
                runA.addNear(Int(a[i]))
                runB.addNear(Int(b[i]))
            }
            for i in both..<countA { runA.addNear(Int(a[i])) }
            for i in both..<countB { runB.addNear(Int(b[i])) }
        }
    }

    /// The state of one patience sort over a ``BitTree`` of tails.
    private struct Run {
        let tree: BitTree
        /// Level 0 (a bit per old row) and level 1 (a bit per word of level 0).
        let low, summary: UnsafeMutablePointer<UInt64>
        let par: UnsafeMutablePointer<UInt32>
        /// The largest and smallest tails (-1 and `Int.max` while there are none).
        var largest = -1, smallest = Int.max
        /// A bit of the zero word after level 0, and that word's index.
        let padding, lastWord: Int

        init(tree: BitTree, par: UnsafeMutablePointer<UInt32>) {
            self.tree = tree
            low = tree.words + tree.start[0]
            summary = tree.words + tree.start[1]
            lastWord = tree.count[0]
            padding = lastWord &<< 6
            self.par = par
        }

        /// Adds old row `v`: its successor among the tails leaves (unless `v` extends the
        /// longest run), `v` joins, and its predecessor is recorded as its parent.
        ///
        /// Looks at three words at once, `v`'s own and the ones on either side (between
        /// two orders of a walk, nearly every neighbour lies within 64 rows of its
        /// value), and writes two back, without a branch and
        /// without touching the summary: only when a neighbour is further, or a word
        /// would fill or empty, does it go through the tree (``step(_:_:_:_:largest:smallest:)``).
        @inline(__always)
        mutating func addNear(_ v: Int) {
            let low = self.low, largest = self.largest, smallest = self.smallest
            let w = v &>> 6, bit = UInt64(1) &<< UInt64(v & 63)
            // The zero words before and after level 0 make w - 1 and w + 1 readable.
            let before = low[w &- 1], word = low[w], after = low[w &+ 1]
            let extends = v > largest, first = v < smallest
            let above = word & ~(bit | (bit &- 1)), below = word & (bit &- 1)
            let lowestAfter = after & (0 &- after)
            // Fast when the successor (unless v extends the run) is in this word, or in the next
            // one without being its only member; when the predecessor (unless v extends the run
            // or precedes every tail) is in this word or the one before; and the word already
            // holds a member.
            let successorHere = above != 0
            let successorNear = nonZero(above | (after & ~lowestAfter)) | flag(extends)
            let predecessorNear = nonZero(below | before) | flag(extends || first)
            if (successorNear & predecessorNear & nonZero(word)) == 0 {
                OrderDiff.step(v, par, tree, low, largest: &self.largest, smallest: &self.smallest)
                return
            }
            let predecessor = select(below != 0, w &<< 6 | (63 &- below.leadingZeroBitCount),
                                     (w &- 1) &<< 6 | (63 &- before.leadingZeroBitCount))
            par[v] = UInt32(truncatingIfNeeded: select(extends, largest, select(first, -1, predecessor)))   // -1: none
            let successor = select(successorHere, w &<< 6 | above.trailingZeroBitCount, (w &+ 1) &<< 6 | after.trailingZeroBitCount)
            let removeHere = UInt64(truncatingIfNeeded: select(!extends && successorHere, -1, 0))
            let removeAfter = UInt64(truncatingIfNeeded: select(!extends && !successorHere, -1, 0))
            low[w &+ 1] = after & ~(lowestAfter & removeAfter)
            low[w] = word & ~(above & (0 &- above) & removeHere) | bit
            self.largest = select(extends || successor == largest, v, largest)
            self.smallest = min(smallest, v)
        }

        /// Adds old row `v`: its successor among the tails leaves (unless `v` extends the
        /// longest run), `v` joins, and its predecessor is recorded as its parent.
        ///
        /// Both neighbours are looked for in `v`'s word and, through the summary word
        /// over it and the summary words on either side, in the nearest non-empty words
        /// of those 192 (12 288 rows), and the bits of both levels are updated, all without
        /// a branch; only a neighbour beyond those words, or a summary word that fills or
        /// empties, goes through the rest of the tree (``step(_:_:_:_:largest:smallest:)``, ``BitTree/refresh(_:level:)``).
        @inline(__always)
        mutating func addThroughSummary(_ v: Int) {
            let low = self.low, summary = self.summary, largest = self.largest, smallest = self.smallest
            let w = v &>> 6, sw = w &>> 6
            let bit = UInt64(1) &<< UInt64(v & 63), wordBit = UInt64(1) &<< UInt64(w & 63)
            // The zero words before and after level 1 make sw - 1 and sw + 1 readable.
            let word = low[w], near = summary[sw], nextSummary = summary[sw &+ 1], previousSummary = summary[sw &- 1]
            let above = word & ~(bit | (bit &- 1)), below = word & (bit &- 1)
            let later = near & ~(wordBit | (wordBit &- 1)), earlier = near & (wordBit &- 1)
            // The nearest non-empty words after and before w under the same summary word, else
            // under the next (previous) one; when there is none, a word kept within level 0 and
            // its zero words before and after, and not used.
            let next = min(select(later != 0, sw &<< 6 | later.trailingZeroBitCount, (sw &+ 1) &<< 6 | nextSummary.trailingZeroBitCount), lastWord)
            let previous = max(select(earlier != 0, sw &<< 6 &+ 63 &- earlier.leadingZeroBitCount,
                                      sw &<< 6 &- 1 &- previousSummary.leadingZeroBitCount), -1)
            let extends = v > largest, first = v < smallest
            let found = nonZero(above | later | nextSummary) | flag(extends)
            let foundBefore = nonZero(below | earlier | previousSummary) | flag(extends || first)
            if (found & foundBefore) == 0 {
                OrderDiff.step(v, par, tree, low, largest: &self.largest, smallest: &self.smallest)
                return
            }
            let successor = select(above != 0, w &<< 6 | above.trailingZeroBitCount, next &<< 6 | low[next].trailingZeroBitCount)
            let predecessor = select(below != 0, w &<< 6 | (63 &- below.leadingZeroBitCount),
                                     previous &<< 6 | (63 &- low[previous].leadingZeroBitCount))
            par[v] = UInt32(truncatingIfNeeded: select(extends, largest, select(first, -1, predecessor)))   // -1: none
            // The successor leaves (unless v extends the run: then a bit of the zero word after
            // level 0 is cleared, which leaves it zero and its summary bit clear), its summary
            // bit clears if its word empties; v joins and sets its word's summary bit.
            let leaves = select(extends, padding, successor)
            let leftWord = leaves &>> 6
            let left = low[leftWord] & ~(UInt64(1) &<< UInt64(leaves & 63))
            low[leftWord] = left
            let leftSummary = summary[leftWord &>> 6]
            let emptied = leftSummary & ~(flag(left == 0) &<< UInt64(leftWord & 63))
            summary[leftWord &>> 6] = emptied
            low[w] |= bit
            let filled = summary[sw]
            summary[sw] = filled | wordBit
            if (nonZero(leftSummary) & (1 &- nonZero(emptied))) | (1 &- nonZero(filled)) != 0 {
                // A summary word emptied or filled: the levels above follow.
                tree.refresh(leftWord &>> 6, level: 1)
                tree.refresh(sw, level: 1)
            }
            self.largest = select(extends || successor == largest, v, largest)
            self.smallest = min(smallest, v)
        }
    }

    /// One value of ``patience(_:_:_:_:)`` through the tree: the successor leaves
    /// (unless `v` extends the run), `v` joins, and the summary bits of the words
    /// that fill or empty are set to match.
    @inline(never)
    private static func step(_ v: Int, _ par: UnsafeMutablePointer<UInt32>, _ tree: BitTree, _ low: UnsafeMutablePointer<UInt64>,
                             largest: inout Int, smallest: inout Int) {
        let summary = tree.words + tree.start[1]
        let w = v &>> 6, bit = UInt64(1) &<< UInt64(v & 63)
        let word = low[w]
        let above = word & ~(bit | (bit &- 1)), below = word & (bit &- 1)
        let extends = v > largest
        // A neighbour in another word: through the summary word over w, else the whole tree.
        let sw = w &>> 6, wordBit = UInt64(1) &<< UInt64(w & 63), near = summary[sw]
        var successor = -1
        if !extends {
            let later = near & ~(wordBit | (wordBit &- 1))
            if above != 0 {
                successor = w &<< 6 | above.trailingZeroBitCount
            } else if later != 0 {
                let next = sw &<< 6 | later.trailingZeroBitCount
                successor = next &<< 6 | low[next].trailingZeroBitCount
            } else {
                successor = tree.successor(atLeast: (w + 1) &<< 6)
            }
        }
        var predecessor = largest
        if !extends {
            let earlier = near & (wordBit &- 1)
            if below != 0 {
                predecessor = w &<< 6 | (63 &- below.leadingZeroBitCount)
            } else if v < smallest {
                predecessor = -1
            } else if earlier != 0 {
                let previous = sw &<< 6 | (63 &- earlier.leadingZeroBitCount)
                predecessor = previous &<< 6 | (63 &- low[previous].leadingZeroBitCount)
            } else {
                predecessor = tree.predecessor(atMost: w &<< 6 - 1)
            }
        }
        par[v] = UInt32(truncatingIfNeeded: predecessor)         // -1 becomes UInt32.max: none
        low[w] = word | bit
        if word == 0 { tree.refresh(w, level: 0) }
        if successor >= 0 {
            let removed = successor &>> 6
            let left = low[removed] & ~(UInt64(1) &<< UInt64(successor & 63))
            low[removed] = left
            if left == 0 { tree.refresh(removed, level: 0) }
        }
        if extends || successor == largest { largest = v }
        smallest = min(smallest, v)
    }
}

/// 1 when `x` is not zero, else 0, without a branch.
@inline(__always)
private func nonZero(_ x: UInt64) -> UInt64 { (x | (0 &- x)) &>> 63 }

/// 1 when `condition` holds, else 0.
@inline(__always)
private func flag(_ condition: Bool) -> UInt64 { UInt64(truncatingIfNeeded: UInt8(condition ? 1 : 0)) }

/// `a` where `condition` holds, else `b`, by masks rather than a branch.
@inline(__always)
private func select(_ condition: Bool, _ a: Int, _ b: Int) -> Int {
    let m = 0 &- Int(truncatingIfNeeded: UInt8(condition ? 1 : 0))
    return a & m | b & ~m
}
