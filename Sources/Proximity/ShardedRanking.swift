/// The ranking of a place set split into shards (each place in exactly one),
/// from each shard's own ranking: the shards' lists merged into the exact
/// order of the whole set, and the update (changed, row moves, inserts,
/// deletes, nearest) computed against the previous merged order exactly as
/// ``ProximityEngine`` computes it for the whole set. Rankings of 1 000 000
/// places split over several machines come back as one.
///
/// The order is the contract's: distance rounded to the whole millimetre,
/// then name, then id, both in Unicode scalar order (by name, then id, for
/// ``SortMode/name``). Each shard's list is already in that order, so the
/// merge is a K-way merge. Every shard must be ranked from the same position
/// with the same options (``ProximityEngine/maximumRadius`` included).
public struct ShardedRanking: Sendable {
    /// One shard's ranking at an update: its rows in order, and its nearest place.
    public struct Shard: Sendable {
        public var order: [String]
        public var names: [String]
        public var distances: [Double]
        public var nearest: String?
        public var nearestDistance: Double?

        public init(order: [String], names: [String], distances: [Double], nearest: String?, nearestDistance: Double?) {
            self.order = order
            self.names = names
            self.distances = distances
            self.nearest = nearest
            self.nearestDistance = nearestDistance
        }

        public init(_ update: RankingUpdate) {
            self.init(order: update.order, names: update.names, distances: update.distances, nearest: update.nearest, nearestDistance: update.nearestDistance)
        }
    }

    public let sortMode: SortMode
    private var previous: [String]?

    public init(sortMode: SortMode = .distance) {
        self.sortMode = sortMode
    }

    /// A row's place in the order: millimetres (distance sort only), name, id.
    private struct Key {
        var millimetres: Int64
        var name: String
        var id: String

        func less(_ other: Key) -> Bool {
            if millimetres != other.millimetres { return millimetres < other.millimetres }
            if name != other.name { return ProximityEngine.scalarLess(name, other.name) }
            return ProximityEngine.scalarLess(id, other.id)
        }
    }

    private func key(_ shard: Shard, _ row: Int) -> Key {
        Key(millimetres: sortMode == .distance ? Int64((shard.distances[row] * 1000).rounded()) : 0, name: shard.names[row], id: shard.order[row])
    }

    /// The merged update for one position, from every shard's update at it.
    public mutating func merge(_ shards: [Shard]) -> RankingUpdate {
        let total = shards.reduce(0) { $0 + $1.order.count }
        var order: [String] = [], names: [String] = [], distances: [Double] = []
        order.reserveCapacity(total)
        names.reserveCapacity(total)
        distances.reserveCapacity(total)
        var next = [Int](repeating: 0, count: shards.count)
        // K is small (a shard per machine): a linear pick of the least head is as fast as a heap here.
        while true {
            var best = -1
            var bestKey: Key?
            for s in shards.indices where next[s] < shards[s].order.count {
                let k = key(shards[s], next[s])
                if let b = bestKey, !k.less(b) { continue }
                best = s
                bestKey = k
            }
            guard best >= 0 else { break }
            let row = next[best]
            order.append(shards[best].order[row])
            names.append(shards[best].names[row])
            distances.append(shards[best].distances[row])
            next[best] += 1
        }
        // The nearest of the whole set is the nearest of the shards' nearest places.
        var nearest: (id: String, distance: Double)?
        var nearestKey: Key?
        for shard in shards {
            guard let id = shard.nearest, let d = shard.nearestDistance else { continue }
            let name = shard.order.firstIndex(of: id).map { shard.names[$0] } ?? ""
            let k = Key(millimetres: Int64((d * 1000).rounded()), name: name, id: id)
            if let b = nearestKey, !k.less(b) { continue }
            nearest = (id, d)
            nearestKey = k
        }
        let update = ProximityEngine.update(order: order, names: names, distances: distances, nearest: nearest, previous: previous)
        previous = order
        return update
    }
}
