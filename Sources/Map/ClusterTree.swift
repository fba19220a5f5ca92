import Foundation
import Geodesy
import SpatialIndex

/// How pins with a clustering identifier are grouped, in screen points.
///
/// Zoom levels are MapKit's and the web's: at zoom `z` the world is
/// `tileSize · 2^z` points wide. A region shown across `mapWidth` points is at
/// zoom `log2(mapWidth · 360 / (longitudeDelta · tileSize))`; clusters come from
/// the level below it (the integer part), clamped to `minZoom...maxZoom + 1`
/// (above `maxZoom` nothing is clustered). At an integer zoom level two pins
/// closer than `radius` points on screen (Web Mercator) join one cluster.
public struct ClusterSettings: Equatable, Sendable {
    /// Cluster radius in screen points (supercluster's `radius`).
    public var radius: Double
    /// The map view's width in points (an iPhone's portrait width by default).
    public var mapWidth: Double
    /// Points across a zoom-0 world (256: MapKit and web maps; supercluster's `extent` is 512 for 512-point tiles).
    public var tileSize: Double
    public var minZoom: Int
    public var maxZoom: Int

    public init(radius: Double = 40, mapWidth: Double = 390, tileSize: Double = 256, minZoom: Int = 0, maxZoom: Int = 16) {
        self.radius = radius
        self.mapWidth = mapWidth
        self.tileSize = tileSize
        self.minZoom = minZoom
        self.maxZoom = maxZoom
    }

    /// Whether the numbers make sense: radius, width and tile size positive, 0 ≤ minZoom ≤ maxZoom ≤ 30.
    public var isValid: Bool {
        radius > 0 && radius.isFinite && mapWidth > 0 && mapWidth.isFinite && tileSize > 0 && tileSize.isFinite
            && minZoom >= 0 && minZoom <= maxZoom && maxZoom <= 30
    }

    /// The zoom a region is shown at across ``mapWidth`` points (fractional).
    public func zoom(of region: MapRegion) -> Double {
        log2(mapWidth * 360 / (region.longitudeDelta * tileSize))
    }

    /// The level whose clusters a region shows: the integer part of its zoom, clamped to `minZoom...maxZoom + 1`.
    public func level(of region: MapRegion) -> Int {
        let z = zoom(of: region)
        guard z.isFinite else { return z > 0 ? maxZoom + 1 : minZoom }
        return max(minZoom, min(maxZoom + 1, Int(z.rounded(.down))))
    }
}

/// Web Mercator in [0, 1] × [0, 1] (x east, y south), as supercluster projects.
enum Mercator {
    @inline(__always)
    static func x(_ longitude: Double) -> Double { longitude / 360 + 0.5 }

    @inline(__always)
    static func y(_ latitude: Double) -> Double {
        if latitude <= -90 { return 1 }
        if latitude >= 90 { return 0 }
        let s = sin(latitude * .pi / 180)
        return min(1, max(0, 0.5 - 0.25 * log((1 + s) / (1 - s)) / .pi))
    }

    static func longitude(_ x: Double) -> Double { (x - 0.5) * 360 }

    static func latitude(_ y: Double) -> Double {
        360 * atan(exp((180 - y * 360) * .pi / 180)) / .pi - 90
    }
}

/// Pins of one clustering identifier grouped at every zoom level, built once
/// (the supercluster algorithm): level `maxZoom + 1` holds the pins; each level
/// below is made from the one above by taking its items in order and merging
/// every item not yet taken within the radius (at that zoom) into the first,
/// at the count-weighted mean of their Web Mercator positions. An item with
/// nothing near passes down unchanged, so it keeps its identity.
///
/// Neighbours are found with the shared grid (``SpatialIndex/PointGrid``), one per level,
/// which also answers the regions a map shows at that level. Building is about
/// linear: a pin is looked at once per level it is still its own item at, and
/// a million pins at one coordinate become one cluster in one pass.
public struct ClusterTree: Sendable {
    /// One zoom level's items: pins (count 1) and clusters.
    public struct Level: Sendable {
        public internal(set) var coordinates: [Coordinate] = []
        var x: [Double] = []
        var y: [Double] = []
        /// Pins in each item.
        public internal(set) var count: [UInt32] = []
        /// The pin (index into the tree's pins) each item grew from: the first in the build order.
        var seed: [UInt32] = []
        /// The zoom an item was formed at (−1 for a pin); with ``seed`` it names the item at every level it lives on.
        var formed: [Int8] = []
        /// Each item's item one level down (coarser); empty at the lowest level.
        var parent: [UInt32] = []
        /// Children one level up (finer), by item: `children[childStart[i]..<childStart[i+1]]`.
        var childStart: [UInt32] = []
        var children: [UInt32] = []
        var grid: PointGrid

        public var itemCount: Int { count.count }
    }

    public let settings: ClusterSettings
    /// The pins, as the caller's indices (annotation indices), in build order.
    public let pins: [Int]
    /// `levels[z - minZoom]` for z in `minZoom...maxZoom + 1`.
    public private(set) var levels: [Level] = []
    /// Neighbour candidates the build looked at (the grid's answers), over every level: the build's work.
    public private(set) var candidatesExamined = 0

    /// Builds the hierarchy over `coordinates`; `pins[i]` is what the caller calls the i-th.
    public init(coordinates: [Coordinate], pins: [Int], settings: ClusterSettings) {
        self.settings = settings
        self.pins = pins
        let n = coordinates.count
        var top = Level(grid: PointGrid(coordinates))
        top.coordinates = coordinates
        top.x = coordinates.map { Mercator.x($0.longitude) }
        top.y = coordinates.map { Mercator.y($0.latitude) }
        top.count = [UInt32](repeating: 1, count: n)
        top.seed = (0..<n).map { UInt32($0) }
        top.formed = [Int8](repeating: -1, count: n)
        var built = [top]
        var zoom = settings.maxZoom
        while zoom >= settings.minZoom {
            var finer = built[built.count - 1]
            let coarser = Self.cluster(&finer, zoom: zoom, settings: settings, examined: &candidatesExamined)
            built[built.count - 1] = finer
            built.append(coarser)
            zoom -= 1
        }
        levels = built.reversed()
    }

    /// Makes level `zoom` from `finer` (level zoom + 1), setting `finer`'s parents and the new level's children.
    static func cluster(_ finer: inout Level, zoom: Int, settings: ClusterSettings, examined: inout Int) -> Level {
        let r = settings.radius / (settings.tileSize * pow(2, Double(zoom)))
        let r2 = r * r
        let n = finer.itemCount
        var taken = [Bool](repeating: false, count: n)
        var parent = [UInt32](repeating: 0, count: n)
        var out = Level(grid: finer.grid)
        out.coordinates.reserveCapacity(n / 2)
        let fx = finer.x, fy = finer.y, fc = finer.count, grid = finer.grid
        for i in 0..<n where !taken[i] {
            taken[i] = true
            let px = fx[i], py = fy[i]
            var total = Int(fc[i])
            var wx = px * Double(total), wy = py * Double(total)
            let me = UInt32(out.count.count)
            parent[i] = me
            var found = false
            // The circle's bounding box in degrees (a hair wider: the grid is only a filter).
            let box = PointGrid.Box(south: Mercator.latitude(min(1, py + r)) - 1e-9, north: Mercator.latitude(max(0, py - r)) + 1e-9,
                                    west: Mercator.longitude(px - r) - 1e-9, east: Mercator.longitude(px + r) + 1e-9)
            var seen = 0
            grid.forEachInBox(box, skippingCellsInside: nil) { j in
                seen += 1
                guard !taken[j] else { return }
                let dx = fx[j] - px, dy = fy[j] - py
                guard dx * dx + dy * dy <= r2 else { return }
                taken[j] = true
                parent[j] = me
                found = true
                let c = Double(fc[j])
                wx += fx[j] * c
                wy += fy[j] * c
                total += Int(fc[j])
            }
            examined += seen
            if found {
                let x = wx / Double(total), y = wy / Double(total)
                out.x.append(x)
                out.y.append(y)
                out.coordinates.append(Coordinate(computedLatitude: Mercator.latitude(y), longitude: Mercator.longitude(x)))
                out.count.append(UInt32(total))
                out.formed.append(Int8(zoom))
            } else {
                out.x.append(px)
                out.y.append(py)
                out.coordinates.append(finer.coordinates[i])
                out.count.append(finer.count[i])
                out.formed.append(finer.formed[i])
            }
            out.seed.append(finer.seed[i])
        }
        finer.parent = parent
        // Children by counting sort on the parent.
        var start = [UInt32](repeating: 0, count: out.count.count + 1)
        for p in parent { start[Int(p) + 1] += 1 }
        for k in 1..<start.count { start[k] += start[k - 1] }
        var fill = start
        var children = [UInt32](repeating: 0, count: n)
        for (j, p) in parent.enumerated() {
            children[Int(fill[Int(p)])] = UInt32(j)
            fill[Int(p)] += 1
        }
        out.childStart = start
        out.children = children
        out.grid = PointGrid(out.coordinates)
        return out
    }

    /// The level for zoom `z` (clamped).
    public func level(zoom z: Int) -> Int { max(0, min(levels.count - 1, z - settings.minZoom)) }

    /// Whether item `i` of level `l` is a cluster (two pins or more).
    @inline(__always)
    public func isCluster(level l: Int, item i: Int) -> Bool { levels[l].count[i] > 1 }

    /// The caller's index of the pin item `i` of level `l` grew from (the pin itself for a pin).
    public func seedPin(level l: Int, item i: Int) -> Int { pins[Int(levels[l].seed[i])] }

    /// The zoom item `i` of level `l` was formed at (nil for a pin).
    public func formedZoom(level l: Int, item i: Int) -> Int? {
        let f = levels[l].formed[i]
        return f < 0 ? nil : Int(f)
    }

    /// A key naming the item across levels: the same for an item that passes down unchanged.
    @inline(__always)
    public func key(level l: Int, item i: Int) -> UInt64 {
        UInt64(UInt8(bitPattern: levels[l].formed[i])) << 32 | UInt64(levels[l].seed[i])
    }

    /// The caller's indices of every pin inside item `i` of level `l`, in build order.
    public func memberPins(level l: Int, item i: Int) -> [Int] {
        var out: [Int] = []
        var stack = [(l, i)]
        while let (level, item) = stack.popLast() {
            if level == levels.count - 1 {
                out.append(pins[item])
                continue
            }
            let lv = levels[level]
            for c in lv.children[Int(lv.childStart[item])..<Int(lv.childStart[item + 1])].reversed() { stack.append((level + 1, Int(c))) }
        }
        return out.sorted()
    }

    /// The item of level `l` holding the pin at position `p` of ``pins``.
    public func item(holdingPin p: Int, level l: Int) -> Int {
        var item = p
        var level = levels.count - 1
        while level > l {
            item = Int(levels[level].parent[item])
            level -= 1
        }
        return item
    }

    /// Web Mercator position of item `i` of level `l`.
    func mercator(level l: Int, item i: Int) -> (x: Double, y: Double) { (levels[l].x[i], levels[l].y[i]) }

    /// Bytes held, grids included.
    public var bytes: Int {
        levels.reduce(0) { total, lv in
            total + lv.itemCount * (MemoryLayout<Coordinate>.stride + 8 + 8 + 4 + 4 + 1) + lv.parent.count * 4
                + lv.childStart.count * 4 + lv.children.count * 4 + lv.grid.bytes
        }
    }
}
