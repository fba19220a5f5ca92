import Foundation
import Geodesy

/// A point of a ``RunMap`` drawing, in screen points: x east, y down.
public struct MapPoint: Sendable, Equatable {
    /// Points from the drawing's left edge, east.
    public var x: Double
    /// Points from the drawing's top edge, south.
    public var y: Double

    /// The point (`x`, `y`).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle of a ``RunMap`` drawing, in screen points (y down).
public struct MapRect: Sendable, Equatable {
    /// The left edge.
    public var x: Double
    /// The top edge.
    public var y: Double
    /// The width in points.
    public var width: Double
    /// The height in points.
    public var height: Double

    /// The rectangle from (`x`, `y`), `width` wide and `height` high.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The right edge.
    public var maxX: Double { x + width }
    /// The bottom edge.
    public var maxY: Double { y + height }

    /// Whether the two rectangles share some area (touching edges do not).
    public func intersects(_ other: MapRect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    /// Whether `other` lies wholly inside this rectangle (edges included).
    public func contains(_ other: MapRect) -> Bool {
        other.x >= x && other.maxX <= maxX && other.y >= y && other.maxY <= maxY
    }

    /// Whether `point` lies inside this rectangle (edges included).
    public func contains(_ point: MapPoint) -> Bool {
        point.x >= x && point.x <= maxX && point.y >= y && point.y <= maxY
    }
}

/// A street or footpath drawn under a run's map: what a ``RunMap`` is given
/// (from an OpenStreetMap extract's walking network) before it clips it to
/// the area it shows.
public struct MapStreet: Sendable, Equatable {
    /// How the line is drawn.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A street or road: a wide light line.
        case street
        /// A footway, path, cycleway or track: a thin dashed line.
        case path
        /// Steps: a short-dashed line.
        case steps
    }

    /// How the line is drawn.
    public var kind: Kind
    /// The line's points, in order.
    public var coordinates: [Coordinate]

    /// A line of `kind` through `coordinates`.
    public init(kind: Kind, coordinates: [Coordinate]) {
        self.kind = kind
        self.coordinates = coordinates
    }
}

/// Cutting lines to the rectangle a map shows.
public enum MapClipping {
    /// The pieces of the polyline through `points` that lie inside `frame`,
    /// each with at least two points: every segment is clipped to the frame
    /// (Liang and Barsky's method), and consecutive clipped segments that
    /// meet are joined into one piece. A point on the frame's edge is inside.
    public static func clip(_ points: [MapPoint], to frame: MapRect) -> [[MapPoint]] {
        var pieces: [[MapPoint]] = []
        var current: [MapPoint] = []
        func flush() {
            if current.count >= 2 { pieces.append(current) }
            current = []
        }
        guard points.count >= 2 else { return [] }
        for k in 1..<points.count {
            guard let (a, b) = clip(points[k - 1], points[k], to: frame) else {
                flush()
                continue
            }
            if current.last == a {
                current.append(b)
            } else {
                flush()
                current = [a, b]
            }
        }
        flush()
        return pieces
    }

    /// The part of the segment from `p` to `q` inside `frame`, or nil when
    /// none is. An end inside the frame is returned as it is, not recomputed;
    /// an end where the segment crosses the frame's edge lies on that edge.
    public static func clip(_ p: MapPoint, _ q: MapPoint, to frame: MapRect) -> (MapPoint, MapPoint)? {
        let dx = q.x - p.x, dy = q.y - p.y
        var t0 = 0.0, t1 = 1.0
        for (d, room) in [(-dx, p.x - frame.x), (dx, frame.maxX - p.x), (-dy, p.y - frame.y), (dy, frame.maxY - p.y)] {
            if d == 0 {
                if room < 0 { return nil }
                continue
            }
            let r = room / d
            if d < 0 {
                t0 = max(t0, r)
            } else {
                t1 = min(t1, r)
            }
            if t0 > t1 { return nil }
        }
        // A point computed on the frame's edge is held to it, against rounding.
        func onFrame(_ t: Double) -> MapPoint {
            MapPoint(x: min(max(p.x + t * dx, frame.x), frame.maxX), y: min(max(p.y + t * dy, frame.y), frame.maxY))
        }
        return (t0 == 0 ? p : onFrame(t0), t1 == 1 ? q : onFrame(t1))
    }
}

/// Where the labels of a map's pins go so that no two overlap and none
/// covers a pin: a greedy, deterministic placement. Labels are taken in the
/// order given (the most wanted first); each tries a few positions around
/// its pin (right of it, above, level and below; then left; then centred
/// above and below) and takes the first that stays inside the frame,
/// overlaps no label placed before it, none of the `avoiding` rectangles
/// and no other label's pin (every pin is an obstacle to every other label,
/// whether its own label is placed or not: its square widened by
/// ``pinMargin`` for the pin's outline), and covers none of the `sparing`
/// points (the walk's); failing that, the first that covers some of those
/// points but nothing else; failing that, the label is left out (a map
/// names its place in the pin's tooltip instead).
public enum LabelPlacement {
    /// One pin's label to place.
    public struct Label: Sendable, Equatable {
        /// The pin's centre.
        public var anchor: MapPoint
        /// The pin's radius in points.
        public var radius: Double
        /// The width of the label's box: its text's width.
        public var width: Double
        /// The height of the label's box: its line's height.
        public var height: Double

        /// The label of a pin at `anchor` of `radius`, its box `width` by `height`.
        public init(anchor: MapPoint, radius: Double, width: Double, height: Double) {
            self.anchor = anchor
            self.radius = radius
            self.width = width
            self.height = height
        }

        /// The positions tried, in order: the label's box about its pin, `gap` points away.
        public func candidates(gap: Double) -> [MapRect] {
            let x = anchor.x, y = anchor.y, r = radius, w = width, h = height
            let right = x + r + gap, left = x - r - gap - w, centred = x - w / 2
            let level = y - h * 0.6, above = y - r * 0.6 - h, below = y + r * 0.6
            return [(right, level), (right, above), (right, below), (left, level), (left, above), (left, below),
                    (centred, y - r - gap - h), (centred, y + r + gap)]
                .map { MapRect(x: $0.0, y: $0.1, width: w, height: h) }
        }

        /// The pin's square, widened by ``LabelPlacement/pinMargin``: what no other label may cover.
        public var pin: MapRect {
            let r = radius + pinMargin
            return MapRect(x: anchor.x - r, y: anchor.y - r, width: 2 * r, height: 2 * r)
        }
    }

    /// How far past its radius a pin keeps other labels off: its white
    /// outline (1.5 points wide, half of it outside the circle) and a little air.
    public static let pinMargin = 1.0

    /// The box of each label, in the order given, or nil for a label left
    /// out. The boxes returned are pairwise disjoint, inside `frame`, clear
    /// of every `avoiding` rectangle and of every other label's ``Label/pin``.
    public static func place(_ labels: [Label], in frame: MapRect, avoiding: [MapRect] = [], sparing points: [MapPoint] = [],
                             gap: Double = 3) -> [MapRect?] {
        var placed: [MapRect] = []
        var result: [MapRect?] = []
        result.reserveCapacity(labels.count)
        // Pins by cell, so that a box asks only the pins near it.
        let cell = 64.0
        var pins: [Int64: [Int]] = [:]
        func key(_ i: Int, _ j: Int) -> Int64 { Int64(i) << 32 | Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: j))) }
        func cells(_ r: MapRect) -> [Int64] {
            let i0 = Int((r.x / cell).rounded(.down)), i1 = Int((r.maxX / cell).rounded(.down))
            let j0 = Int((r.y / cell).rounded(.down)), j1 = Int((r.maxY / cell).rounded(.down))
            guard i1 - i0 < 64, j1 - j0 < 64 else { return [] }
            return (i0...i1).flatMap { i in (j0...j1).map { j in key(i, j) } }
        }
        var placedByCell: [Int64: [Int]] = [:]
        let near = MapRect(x: frame.x - cell, y: frame.y - cell, width: frame.width + 2 * cell, height: frame.height + 2 * cell)
        for (k, label) in labels.enumerated() where near.contains(label.anchor) && label.radius.isFinite && label.radius < cell {
            for c in cells(label.pin) { pins[c, default: []].append(k) }
        }
        var spared: [Int64: [MapPoint]] = [:]
        for p in points where frame.contains(p) {
            spared[key(Int((p.x / cell).rounded(.down)), Int((p.y / cell).rounded(.down))), default: []].append(p)
        }
        func coversPin(_ r: MapRect, except own: Int) -> Bool {
            cells(r).contains { c in pins[c, default: []].contains { $0 != own && labels[$0].pin.intersects(r) } }
        }
        func coversWalk(_ r: MapRect) -> Bool {
            cells(r).contains { c in spared[c, default: []].contains { r.contains($0) } }
        }
        func overlapsLabel(_ r: MapRect) -> Bool {
            cells(r).contains { c in placedByCell[c, default: []].contains { placed[$0].intersects(r) } }
        }
        for (k, label) in labels.enumerated() {
            guard label.width > 0, label.height > 0, label.anchor.x.isFinite, label.anchor.y.isFinite else {
                result.append(nil)
                continue
            }
            let fits = label.candidates(gap: gap).filter { r in
                frame.contains(r) && !avoiding.contains { $0.intersects(r) } && !overlapsLabel(r) && !coversPin(r, except: k)
            }
            guard let chosen = fits.first(where: { !coversWalk($0) }) ?? fits.first else {
                result.append(nil)
                continue
            }
            for c in cells(chosen) { placedByCell[c, default: []].append(placed.count) }
            placed.append(chosen)
            result.append(chosen)
        }
        return result
    }

    /// A generous estimate of the width of `text` set in Helvetica (or Arial,
    /// or Liberation Sans) at `fontSize`: the font's advance widths, a tenth
    /// more, bold a tenth more again. Characters past Latin are taken as wide.
    public static func textWidth(_ text: String, fontSize: Double, bold: Bool = false) -> Double {
        var units = 0
        for scalar in text.unicodeScalars {
            let v = Int(scalar.value)
            if v >= 32, v < 127 {
                units += helveticaWidths[v - 32]
            } else if v < 0x2E80 {
                units += 750
            } else {
                units += 1000
            }
        }
        return Double(units) / 1000 * fontSize * 1.1 * (bold ? 1.1 : 1) + 1
    }

    /// The height of a line of text at `fontSize`: the box from above the
    /// ascenders (0.95 em over the baseline) to below the descenders (0.25 em).
    public static func textHeight(fontSize: Double) -> Double { fontSize * 1.2 }

    /// How far below the top of a label's box its baseline lies.
    public static func baseline(fontSize: Double) -> Double { fontSize * 0.95 }

    /// Helvetica's advance widths (Adobe's metrics, thousandths of an em) of the characters 32 to 126.
    static let helveticaWidths: [Int] = [
        278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 to ?
        1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ to O
        667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P to _
        333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` to o
        556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p to ~
    ]
}
