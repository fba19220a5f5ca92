import Foundation
@testable import Geodesy
import Testing
import TestSupport
@testable import Proximity

@Suite("RankingIndex: the large-N core is exact")
struct RankingIndexTests {
    /// Places over 6 km x 6 km around Liverpool with deliberate ties (same spot, same name).
    static func places(_ n: Int, seed: UInt64) -> (coordinates: [Coordinate], names: [String], ids: [String]) {
        var rng = SplitMix64(seed: seed)
        var coordinates: [Coordinate] = []
        var names: [String] = []
        for i in 0..<n {
            if i % 17 == 5, let c = coordinates.last {
                coordinates.append(c)
            } else {
                coordinates.append(try! Coordinate(latitude: 53.4055 + rng.uniform(-0.027, 0.027), longitude: -2.966 + rng.uniform(-0.045, 0.045)))
            }
            names.append(["Costa", "Leaf", "Tabac", "Ça va", "Zest", "café"][Int(rng.next() % 6)])
        }
        return (coordinates, names, (0..<n).map { "id\($0)" })
    }

    static func bruteForce(_ p: (coordinates: [Coordinate], names: [String], ids: [String]), from w: Coordinate) -> [Int] {
        let mm = p.coordinates.map { Int64((Geodesic.wgs84.distance(w, $0) * 1000).rounded()) }
        return p.coordinates.indices.sorted { a, b in
            if mm[a] != mm[b] { return mm[a] < mm[b] }
            if p.names[a] != p.names[b] { return ProximityEngine.scalarLess(p.names[a], p.names[b]) }
            return ProximityEngine.scalarLess(p.ids[a], p.ids[b])
        }
    }

    @Test("full order equals Karney's brute-force order, small (insertion sort) and large (radix sort)", arguments: [12, 200, 3000])
    func fullOrder(n: Int) throws {
        let p = Self.places(n, seed: UInt64(n))
        var index = RankingIndex(coordinates: p.coordinates, names: p.names, ids: p.ids)
        var rng = SplitMix64(seed: 77)
        var walker = try Coordinate(latitude: 53.40, longitude: -2.97)
        for _ in 0..<25 {
            walker = Geodesic.wgs84.direct(from: walker, azimuth: rng.uniform(0, 360), distance: rng.uniform(20, 300)).coordinate
            index.rankAll(from: walker)
            #expect(index.order.map(Int.init) == Self.bruteForce(p, from: walker))
            for r in [0, 1, n / 2, n - 1] {
                let exact = Geodesic.wgs84.distance(walker, p.coordinates[Int(index.order[r])])
                #expect(abs(index.distance(atRank: r) - exact) <= GeodesicDistanceFrame.tolerance)
            }
        }
    }

    @Test("on several threads (from 200 000 places; here from 1 000): Karney's brute-force order, with uneven slices", arguments: [2, 3, 7])
    func parallelOrder(threads: Int) throws {
        let p = Self.places(4_001, seed: UInt64(threads))
        var index = RankingIndex(coordinates: p.coordinates, names: p.names, ids: p.ids)
        index.threads = threads
        index.parallelFrom = 1_000
        var walker = try Coordinate(latitude: 53.40, longitude: -2.97)
        for step in 0..<6 {
            walker = Geodesic.wgs84.direct(from: walker, azimuth: 40, distance: 150).coordinate
            index.rankAll(from: walker)
            #expect(index.order.map(Int.init) == Self.bruteForce(p, from: walker), "step \(step)")
            for r in [0, 7, p.coordinates.count / 2, p.coordinates.count - 1] {
                let exact = Geodesic.wgs84.distance(walker, p.coordinates[Int(index.order[r])])
                #expect(abs(index.distance(atRank: r) - exact) <= GeodesicDistanceFrame.tolerance)
            }
        }
    }

    /// From `bucketThreshold` places on (here from 1 000) the keys are sorted by the leading
    /// bits into buckets, then each bucket by the rest, on one thread or several; millimetres of one digit or of three
    /// go the usual way with their counts made again. Spreads: 3 m (one digit), 7 m (13 bits:
    /// one leading bit), 800 m, 6 km, 25 km (three digits), and a ring 5 km ± 1 m (every
    /// place in one or two buckets).
    @Test("in buckets (from 350 000 places; here from 1 000), on one thread and on three: Karney's brute-force order at every spread of distances",
          arguments: [3.0, 7.0, 800.0, 6_000.0, 25_000.0, -5_000.0])
    func bucketOrder(spread: Double) throws {
        var rng = SplitMix64(seed: UInt64(abs(spread)))
        let centre = try Coordinate(latitude: 53.4055, longitude: -2.966)
        var coordinates: [Coordinate] = []
        var names: [String] = []
        for i in 0..<4_001 {
            let distance = spread < 0 ? -spread + rng.uniform(-1, 1) : rng.uniform(0, spread)
            if i % 13 == 4, let c = coordinates.last {
                coordinates.append(c)
            } else {
                coordinates.append(Geodesic.wgs84.direct(from: centre, azimuth: rng.uniform(0, 360), distance: distance).coordinate)
            }
            names.append(["Costa", "Leaf", "Tabac", "Ça va"][Int(rng.next() % 4)])
        }
        let p = (coordinates: coordinates, names: names, ids: (0..<coordinates.count).map { "id\($0)" })
        var index = RankingIndex(coordinates: p.coordinates, names: p.names, ids: p.ids)
        index.threads = 1
        index.bucketsFrom = 1_000
        var reference = index
        reference.bucketsFrom = .max
        // On three threads (from 200 000 places; here from 1 000): the buckets' counts by thread,
        // a stable scatter, and runs of whole buckets on each thread.
        var three = index
        three.threads = 3
        three.parallelFrom = 1_000
        for step in 0..<3 {
            let walker = Geodesic.wgs84.direct(from: centre, azimuth: 70 * Double(step), distance: min(abs(spread) / 4, 0.2 * Double(step))).coordinate
            index.rankAll(from: walker)
            reference.rankAll(from: walker)
            three.rankAll(from: walker)
            #expect(index.order.map(Int.init) == Self.bruteForce(p, from: walker), "step \(step)")
            #expect(index.order == reference.order, "step \(step)")
            #expect(three.order == reference.order, "three threads, step \(step)")
        }
    }

    @Test("places within 20 nm of a half millimetre are ranked as Karney's distance rounds (a tie with the whole millimetre beside them, or not): the small path, the radix path, two threads, and in buckets (millimetres alone) on one thread and two",
          arguments: [(120, 1, false), (2_000, 1, false), (2_000, 2, false), (2_000, 1, true), (2_000, 2, true)])
    func halfMillimetres(n: Int, threads: Int, bucketed: Bool) throws {
        let walker = try Coordinate(latitude: 53.4055, longitude: -2.966)
        var rng = SplitMix64(seed: UInt64(n + threads))
        var coordinates: [Coordinate] = []
        var names: [String] = []
        for i in stride(from: 0, to: n, by: 2) {
            // A pair: one place a half millimetre (give or take 20 nm, about the series' own error) short of a
            // whole millimetre k, one on k. Only the exact rounding ties the first with the second (and then
            // their names put the second first); rounding the series' distance instead often puts the first ahead.
            let k = Double(Int(rng.uniform(50_000, 9_000_000)))
            for (mm, name) in [(k - 0.5 + rng.uniform(-2e-5, 2e-5), "B\(i)"), (k, "A\(i + 1)")] {
                coordinates.append(Geodesic.wgs84.direct(from: walker, azimuth: rng.uniform(0, 360), distance: mm / 1000).coordinate)
                names.append(name)
            }
        }
        let p = (coordinates: coordinates, names: names, ids: (0..<n).map { "id\($0)" })
        var index = RankingIndex(coordinates: p.coordinates, names: p.names, ids: p.ids)
        index.threads = threads
        index.parallelFrom = 1_000
        if bucketed { index.bucketsFrom = 1_000 }
        index.rankAll(from: walker)
        #expect(index.order.map(Int.init) == Self.bruteForce(p, from: walker))
        for r in 0..<n {
            let exact = Geodesic.wgs84.distance(walker, p.coordinates[Int(index.order[r])])
            #expect(abs(index.distance(atRank: r) - exact) <= GeodesicDistanceFrame.tolerance(atDistance: exact))
        }
    }

    @Test("places around the world (beyond 2000 km: Karney's method and a comparison sort), on one thread and on two, with and without buckets",
          arguments: [(2, false), (1, true), (2, true)])
    func worldwide(threads: Int, bucketed: Bool) throws {
        var rng = SplitMix64(seed: 9)
        for n in [50, 3_000] {
            let coordinates = (0..<n).map { _ in Coordinate(computedLatitude: rng.uniform(-80, 80), longitude: rng.uniform(-180, 180)) }
            let labels = coordinates.indices.map { "p\($0)" }
            let p = (coordinates: coordinates, names: labels, ids: labels)
            var index = RankingIndex(coordinates: coordinates, names: labels, ids: labels)
            index.threads = threads
            index.parallelFrom = 1_000
            // In buckets, the millimetres past 32 bits are not what is sorted: the comparison sort is.
            if bucketed { index.bucketsFrom = 1_000 }
            let walker = try Coordinate(latitude: 53.4, longitude: -2.97)
            index.rankAll(from: walker)
            #expect(index.order.map(Int.init) == Self.bruteForce(p, from: walker), "\(n) places")
            for r in [0, 1, n / 2, n - 1] {
                let exact = Geodesic.wgs84.distance(walker, p.coordinates[Int(index.order[r])])
                #expect(abs(index.distance(atRank: r) - exact) <= GeodesicDistanceFrame.tolerance, "\(n) places, row \(r)")
            }
        }
    }

    @Test("a small set with places from 1 to 60 km (Karney's method past 20 km, keys within 31 bits), an odd count: the order, and every row's distance by rank and by place")
    func smallSetPastSeriesRange() throws {
        let walker = try Coordinate(latitude: 53.4055, longitude: -2.966)
        var rng = SplitMix64(seed: 31)
        let coordinates = (0..<23).map { _ in
            Geodesic.wgs84.direct(from: walker, azimuth: rng.uniform(0, 360), distance: rng.uniform(1_000, 60_000)).coordinate
        }
        let labels = coordinates.indices.map { "p\($0)" }
        let p = (coordinates: coordinates, names: labels, ids: labels)
        var index = RankingIndex(coordinates: coordinates, names: labels, ids: labels)
        var w = walker
        for step in 0..<4 {
            index.rankAll(from: w)
            #expect(index.order.map(Int.init) == Self.bruteForce(p, from: w), "step \(step)")
            for r in 0..<coordinates.count {
                let place = Int(index.order[r])
                let exact = Geodesic.wgs84.distance(w, coordinates[place])
                #expect(abs(index.distance(atRank: r) - exact) <= GeodesicDistanceFrame.tolerance, "step \(step), row \(r)")
                #expect(index.distance(atRank: r) == index.distance(ofPlace: place))
            }
            w = Geodesic.wgs84.direct(from: w, azimuth: 70, distance: 400).coordinate
        }
    }

    @Test("the chord series is within the tolerance of Karney up to 20 km, band by band, at many latitudes")
    func seriesAccuracy() throws {
        var rng = SplitMix64(seed: 3)
        var worst = 0.0, worstRatio = 0.0
        for _ in 0..<400 {
            let origin = try Coordinate(latitude: rng.uniform(-85, 85), longitude: rng.uniform(-180, 180))
            let targets = (0..<100).map { _ in Geodesic.wgs84.direct(from: origin, azimuth: rng.uniform(0, 360), distance: rng.uniform(0, 20_000)).coordinate }
            let frame = RankingIndex.Walker(origin, ellipsoid: Geodesic.wgs84.ellipsoid)
            for t in targets {
                let p = Ellipsoid.wgs84.ecef(t)
                let series = frame.distance(p.x, p.y, p.z)
                let exact = Geodesic.wgs84.distance(origin, t)
                let error = abs(series - exact)
                worst = max(worst, error)
                worstRatio = max(worstRatio, error / GeodesicDistanceFrame.tolerance(atDistance: series))
            }
        }
        #expect(worst <= GeodesicDistanceFrame.tolerance, "worst \(worst) m")
        // Within a third of each band's bound: the bounds keep a margin over what is seen.
        #expect(worstRatio <= 0.5, "worst error is \(worstRatio) of its band's bound")
    }

    @Test("the walker's sine and cosine of degrees: exact at multiples of 90°, within an ulp of 1 of libm's on the same reduced angle")
    func walkerSinCos() {
        for (degrees, sine, cosine) in [(0.0, 0.0, 1.0), (90, 1, 0), (-90, -1, 0), (180, 0, -1), (-180, 0, -1)] {
            let (s, c) = RankingIndex.Walker.sinCos(degrees: degrees)
            #expect(s == sine && c == cosine, "\(degrees)°: \(s), \(c)")
        }
        var rng = SplitMix64(seed: 41)
        var worst = 0.0
        for i in 0..<40_000 {
            // Every quadrant, and a sweep that passes within 1e-9° of every multiple of 45°, where the reduction switches.
            let x = i < 20_000 ? rng.uniform(-180, 180) : Double(i - 20_000 - 10_000) * 0.018 + (i % 2 == 0 ? 1e-9 : -1e-9)
            let (s, c) = RankingIndex.Walker.sinCos(degrees: x)
            let (es, ec) = GeoMath.sincosd(x)
            worst = max(worst, abs(s - es), abs(c - ec))
        }
        // GeoMath.sincosd reduces the angle the same way and calls libm: both under an ulp of 1.
        #expect(worst <= 2.3e-16, "worst \(worst)")
    }

    @Test("the k nearest are the first k of the full order")
    func nearest() throws {
        let p = Self.places(20_000, seed: 11)
        var index = RankingIndex(coordinates: p.coordinates, names: p.names, ids: p.ids)
        var found: [(index: Int, distance: Double)] = []
        var rng = SplitMix64(seed: 12)
        for _ in 0..<20 {
            let w = try Coordinate(latitude: 53.4055 + rng.uniform(-0.035, 0.035), longitude: -2.966 + rng.uniform(-0.06, 0.06))
            index.nearest(20, from: w, into: &found)
            index.rankAll(from: w)
            #expect(found.map(\.index) == index.order.prefix(20).map(Int.init))
        }
    }

    @Test("the region query returns exactly the places inside the rectangle")
    func region() throws {
        let p = Self.places(20_000, seed: 13)
        let index = RankingIndex(coordinates: p.coordinates, names: p.names, ids: p.ids)
        var inside: [Int] = []
        var rng = SplitMix64(seed: 14)
        for _ in 0..<20 {
            let c = try Coordinate(latitude: 53.4055 + rng.uniform(-0.03, 0.03), longitude: -2.966 + rng.uniform(-0.05, 0.05))
            let span = Ellipsoid.wgs84.degrees(metresNorthSouth: 1000, metresEastWest: 1000, atLatitude: c.latitude)
            index.inside(center: c, latitudeDelta: span.latitudeDelta, longitudeDelta: span.longitudeDelta, into: &inside)
            let expected = p.coordinates.indices.filter {
                abs(p.coordinates[$0].latitude - c.latitude) <= span.latitudeDelta / 2 && abs(p.coordinates[$0].longitude - c.longitude) <= span.longitudeDelta / 2
            }
            #expect(inside.sorted() == expected)
        }
    }

    @Test("integer minimal moves agree with RowDiff")
    func moves() throws {
        var rng = SplitMix64(seed: 21)
        var diff = OrderDiff()
        var moves: [RowMove] = []
        for _ in 0..<50 {
            let n = Int(rng.next() % 60) + 1
            let previous = (0..<n).map { UInt32($0) }.shuffled(using: &rng)
            var current = previous
            for _ in 0..<Int(rng.next() % 5) {
                let a = Int(rng.next() % UInt64(n)), b = Int(rng.next() % UInt64(n))
                current.swapAt(a, b)
            }
            diff.moves(from: previous, to: current, into: &moves)
            let reference = RowDiff(previous: previous.map(String.init), current: current.map(String.init))
            #expect(moves.count == reference.moves.count)
            #expect(RowDiff.apply(RowDiff(moves: moves), to: previous.map(String.init), current: current.map(String.init)) == current.map(String.init))
        }
    }
}

extension RankingIndexTests {
    /// The tails live in one word up to 64 rows, else in a tree of bit words with a fast
    /// path for neighbours in the nearest words; these orders reach every level and every slower path.
    @Test("integer minimal moves pick the same rows as patience sorting over arrays below the split into halves, and a longest run above it, in one word and with up to three levels of bit words",
          arguments: [1, 2, 10, 63, 64, 65, 1_000, 4_096, 4_097, OrderDiff.splitFrom - 1, OrderDiff.splitFrom, 70_000])
    func movesLarge(n: Int) {
        var rng = SplitMix64(seed: UInt64(n))
        var diff = OrderDiff()
        var moves: [RowMove] = []
        let previous = (0..<n).map { UInt32($0) }.shuffled(using: &rng)
        var orders: [[Int]] = []
        orders.append((0..<n).shuffled(using: &rng))                                  // anything goes
        orders.append(Array((0..<n).reversed()))                                        // one row stays
        orders.append((0..<n).map { $0 % 2 == 0 ? $0 / 2 : n - 1 - $0 / 2 })           // far neighbours every other row
        for spread in [3, 40, 5_000] {                                                 // places moving a little, as in a walk
            let keys = (0..<n).map { Double($0) + Double(rng.next() % UInt64(2 * spread + 1)) - Double(spread) }
            orders.append((0..<n).sorted { keys[$0] < keys[$1] })
        }
        var sparse = Array(0..<n)                                                       // a few long jumps
        for _ in 0..<3 where n > 1 { sparse.swapAt(Int(rng.next() % UInt64(n)), Int(rng.next() % UInt64(n))) }
        orders.append(sparse)
        for rows in orders {
            // `rows[r]`: the old row of the place now in row r.
            let current = rows.map { previous[$0] }
            diff.moves(from: previous, to: current, into: &moves)
            let keep = RowDiff.longestIncreasing(rows)
            if n < OrderDiff.splitFrom {
                let expected = rows.indices.filter { !keep[$0] }.map { RowMove(from: rows[$0], to: $0) }
                #expect(moves == expected)
            } else {
                #expect(Self.keptRun(moves, rows) == keep.filter { $0 }.count)
            }
        }
    }

    /// How many rows `moves` keeps, if they are valid moves from the old rows `rows[r]` to the
    /// new rows `r` (in new-row order, every row not moved keeping its place among the others); else -1.
    static func keptRun(_ moves: [RowMove], _ rows: [Int]) -> Int {
        var moved = [Bool](repeating: false, count: rows.count)
        var lastTo = -1
        for m in moves {
            guard m.to > lastTo, m.to < rows.count, m.from == rows[m.to] else { return -1 }
            moved[m.to] = true
            lastTo = m.to
        }
        var lastFrom = -1, kept = 0
        for r in rows.indices where !moved[r] {
            guard rows[r] > lastFrom else { return -1 }
            lastFrom = rows[r]
            kept += 1
        }
        return kept
    }
}

extension RankingIndexTests {
    /// From `OrderDiff.splitFrom` rows on, the longest run is found in two halves (together on one
    /// thread; with two or more, on the diff's spinning worker, or when it has fallen asleep from
    /// `halvesOnThreadsFrom` on two woken threads; a value's neighbours looked for beside its word,
    /// or from `wideFrom` under its summary word), and from `RankingIndex.parallelThreshold` rows
    /// on the rows' positions and the moves are worked out in slices on several threads; the moves
    /// must not depend on any of these.
    @Test("minimal moves split across threads equal one thread's, and keep a longest run",
          arguments: [OrderDiff.splitFrom + 1, OrderDiff.halvesOnThreadsFrom + 3_001, 50_001, RankingIndex.parallelThreshold + 12_345])
    func movesSplit(n: Int) {
        var rng = SplitMix64(seed: 77)
        let previous = (0..<n).map { UInt32($0) }.shuffled(using: &rng)
        let keys = (0..<n).map { Double($0) + Double(rng.next() % 8_001) - 4_000 }
        let near = (0..<n).map { Double($0) + Double(rng.next() % 81) - 40 }
        for rows in [(0..<n).sorted { keys[$0] < keys[$1] }, (0..<n).sorted { near[$0] < near[$1] },
                     (0..<n).shuffled(using: &rng), Array((0..<n).reversed()), Array(0..<n)] {
            let current = rows.map { previous[$0] }
            var one = OrderDiff(), two = OrderDiff(), three = OrderDiff()
            one.threads = 1
            two.threads = 2
            three.threads = 3
            var a: [RowMove] = [], b: [RowMove] = [], c: [RowMove] = []
            one.moves(from: previous, to: current, into: &a)
            two.moves(from: previous, to: current, into: &b)
            three.moves(from: previous, to: current, into: &c)
            #expect(a == b)
            #expect(a == c)
            // Again once the worker has (most likely) fallen asleep: the halves the other way.
            usleep(2_000)
            two.moves(from: previous, to: current, into: &b)
            #expect(a == b)
            let keep = RowDiff.longestIncreasing(rows)
            #expect(Self.keptRun(c, rows) == keep.filter { $0 }.count)
        }
    }

    /// With the diff's spinning thread awake, half of each update's distances are worked
    /// out there and the digit counts added up: the order and the distances must be the
    /// ones the calling thread alone gives, update after update (the thread's counts start
    /// from zero each time), and when the thread has fallen asleep.
    @Test("the full order with half the distances on the diff's thread equals one thread's", arguments: [OrderDiff.splitFrom + 1, 30_001])
    func rankBesideDiff(n: Int) throws {
        let p = Self.places(n, seed: 31)
        var helped = RankingIndex(coordinates: p.coordinates, names: p.names, ids: p.ids)
        var alone = helped
        helped.threads = 2
        alone.threads = 1
        var diff = OrderDiff()
        diff.threads = 2
        var moves: [RowMove] = [], previous: [UInt32] = []
        var rng = SplitMix64(seed: 32)
        var handed = 0
        for step in 0..<12 {
            // A walk of short steps, with a jump of several kilometres now and then.
            let jump = step % 5 == 4 ? 0.03 : 0.0003
            let walker = try Coordinate(latitude: 53.40 + jump * Double(rng.next() % 100) / 100, longitude: -2.97 + jump * Double(rng.next() % 100) / 100)
            // Woken before most updates (a debug build's checks below can outlast its spin); not before
            // the one after the pause, which then runs on the calling thread alone.
            if step != 9 {
                diff.wakeWorker()
                // On a loaded machine the thread may not have run since its last job: give it up to
                // 50 ms to be there, so that what is checked is the handing over, not the scheduler.
                for _ in 0..<200 where diff.awakeWorker(rows: n) == nil && step > 1 {
                    usleep(250)
                    diff.wakeWorker()
                }
            }
            if diff.awakeWorker(rows: n) != nil { handed += 1 }
            helped.rankAll(from: walker, beside: diff)
            alone.rankAll(from: walker)
            #expect(helped.order == alone.order, "step \(step)")
            #expect((0..<n).allSatisfy { helped.distance(atRank: $0).bitPattern == alone.distance(atRank: $0).bitPattern }, "step \(step)")
            if step == 6 {
                // A copy shares nothing it writes with the index it was copied from: each ranks on its own.
                var copy = helped
                diff.wakeWorker()
                let elsewhere = try Coordinate(latitude: 53.41, longitude: -2.95)
                copy.rankAll(from: elsewhere, beside: diff)
                alone.rankAll(from: elsewhere)
                #expect(copy.order == alone.order)
                diff.wakeWorker()
                helped.rankAll(from: walker, beside: diff)
                alone.rankAll(from: walker)
                #expect(helped.order == alone.order)
            }
            if !previous.isEmpty { diff.moves(from: previous, to: helped.order, into: &moves) }
            previous = helped.order
            if step == 8 { usleep(2_000) }        // the thread most likely asleep for the next update
        }
        // The thread was there, awake, for updates after the first diff.
        #expect(handed >= 1)
    }

    /// The moves are written into the caller's array, grown or shrunk to fit: a reused
    /// array holding more or fewer moves than the next diff must end with exactly its moves.
    @Test("minimal moves into a reused array of any length are exactly the new moves")
    func movesReused() {
        var rng = SplitMix64(seed: 78)
        var diff = OrderDiff()
        var moves = [RowMove](repeating: RowMove(from: 7, to: 7), count: 50_000)
        for n in [10, 20_000, 3, 20_000, 9_000, 1] {
            let previous = (0..<n).map { UInt32($0) }
            var rows = Array(0..<n)
            for _ in 0..<(n / 3) { rows.swapAt(Int(rng.next() % UInt64(n)), Int(rng.next() % UInt64(n))) }
            let current = rows.map { previous[$0] }
            diff.moves(from: previous, to: current, into: &moves)
            let keep = RowDiff.longestIncreasing(rows)
            #expect(moves.count == keep.filter { !$0 }.count)
            #expect(Self.keptRun(moves, rows) == keep.filter { $0 }.count)
        }
    }
}

/// Run by `make test-large` (release) in a process of its own: a million places.
@Suite("A million places, exact", .enabled(if: ProcessInfo.processInfo.environment["STROLL_LARGE"] == "1"))
struct MillionPlacesRankingTests {
    @Test("the full order of a million places on two threads equals one thread's, and sampled rows agree with Karney")
    func millionPlaces() throws {
        let p = RankingIndexTests.places(1_000_000, seed: 21)
        var two = RankingIndex(coordinates: p.coordinates, names: p.names, ids: p.ids)
        two.threads = 2
        var one = two
        one.threads = 1
        var rng = SplitMix64(seed: 22)
        var walker = try Coordinate(latitude: 53.40, longitude: -2.97)
        for step in 0..<3 {
            walker = Geodesic.wgs84.direct(from: walker, azimuth: rng.uniform(0, 360), distance: 400).coordinate
            two.rankAll(from: walker)
            one.rankAll(from: walker)
            #expect(two.order == one.order, "step \(step)")
            func mm(_ r: Int) -> Int64 { Int64((Geodesic.wgs84.distance(walker, p.coordinates[Int(two.order[r])]) * 1000).rounded()) }
            for _ in 0..<2000 {
                let r = Int(rng.next() % UInt64(p.coordinates.count - 1))
                let exact = Geodesic.wgs84.distance(walker, p.coordinates[Int(two.order[r])])
                #expect(abs(two.distance(atRank: r) - exact) <= GeodesicDistanceFrame.tolerance)
                // Neighbouring rows in Karney's millimetres, then name, then id.
                let a = Int(two.order[r]), b = Int(two.order[r + 1])
                let (ma, mb) = (mm(r), mm(r + 1))
                let tieFirst = p.names[a] != p.names[b] ? ProximityEngine.scalarLess(p.names[a], p.names[b]) : ProximityEngine.scalarLess(p.ids[a], p.ids[b])
                #expect(ma < mb || (ma == mb && tieFirst), "rows \(r) and \(r + 1) at step \(step)")
            }
        }
    }
}

@Suite("SpinningWorker: a job runs once, on the worker or back on the caller")
struct SpinningWorkerTests {
    /// Every posted job runs exactly once, whether the worker took it or the caller got it
    /// back, and its writes are visible to the caller afterwards (the diff's halves rely on
    /// both); the worker also survives sleeping and waking between jobs.
    @Test("each posted job runs exactly once and its writes are seen; after wake() jobs still run")
    func jobsRunOnce() {
        let worker = SpinningWorker()
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 2_000)
        counts.initialize(repeating: 0, count: 2_000)
        defer { counts.deallocate() }
        let slots = Address(counts)
        for i in 0..<2_000 {
            if i % 500 == 250 { worker.wake() }
            worker.post { slots.pointer[i] += 1 }
            if let job = worker.reclaimOrWait() { job() }
            #expect(counts[i] == 1, "job \(i)")
        }
        #expect((0..<2_000).allSatisfy { counts[$0] == 1 })
    }
}
