import CGEOS
import Geodesy

/// An axis-aligned rectangle in the plane.
public struct Envelope: Equatable, Sendable {
    public var minX: Double, minY: Double, maxX: Double, maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    public func contains(x: Double, y: Double) -> Bool {
        x >= minX && x <= maxX && y >= minY && y <= maxY
    }
}

/// A point in a plane: metres east and north in a ``Geodesy/LocalProjection`` for
/// geometry on the ground.
public struct PlanePoint: Equatable, Sendable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A GEOS geometry owned by Swift: destroyed with the last reference, never
/// shared across threads (it belongs to its ``GEOSContext``).
public final class Geometry: CustomStringConvertible {
    public let context: GEOSContext
    let pointer: OpaquePointer

    init(context: GEOSContext, taking pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit {
        GEOSGeom_destroy_r(context.handle, pointer)
    }

    // MARK: Constructors

    /// A point at `x`, `y`.
    public static func point(x: Double, y: Double, in context: GEOSContext) throws(SpatialError) -> Geometry {
        guard x.isFinite, y.isFinite else { throw .invalidInput("point (\(x), \(y)) is not finite") }
        guard let g = GEOSGeom_createPointFromXY_r(context.handle, x, y) else { throw context.failure("create point") }
        return Geometry(context: context, taking: g)
    }

    /// A line string through at least two points.
    public static func lineString(_ points: [PlanePoint], in context: GEOSContext) throws(SpatialError) -> Geometry {
        guard points.count >= 2 else { throw .invalidInput("a line string needs at least 2 points, got \(points.count)") }
        let seq = try sequence(points, in: context)
        guard let g = GEOSGeom_createLineString_r(context.handle, seq) else { throw context.failure("create line string") }
        return Geometry(context: context, taking: g)
    }

    /// A polygon from its outer ring and optional holes; rings are closed if they are not.
    public static func polygon(shell: [PlanePoint], holes: [[PlanePoint]] = [], in context: GEOSContext) throws(SpatialError) -> Geometry {
        let shellRing = try ring(shell, in: context)
        var holeRings: [OpaquePointer?] = []
        for hole in holes {
            do {
                holeRings.append(try ring(hole, in: context))
            } catch {
                holeRings.forEach { GEOSGeom_destroy_r(context.handle, $0) }
                GEOSGeom_destroy_r(context.handle, shellRing)
                throw error
            }
        }
        let g = holeRings.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createPolygon_r(context.handle, shellRing, buffer.baseAddress, UInt32(buffer.count))
        }
        guard let g else { throw context.failure("create polygon") }
        return Geometry(context: context, taking: g)
    }

    /// A polygon on the ground: `coordinates` projected into `projection`'s metric plane.
    public static func polygon(coordinates: [Coordinate], projection: LocalProjection, in context: GEOSContext) throws(SpatialError) -> Geometry {
        try polygon(shell: coordinates.map { let p = projection.project($0); return PlanePoint(x: p.x, y: p.y) }, in: context)
    }

    /// The axis-aligned rectangle as a polygon.
    public static func rectangle(_ envelope: Envelope, in context: GEOSContext) throws(SpatialError) -> Geometry {
        guard let g = GEOSGeom_createRectangle_r(context.handle, envelope.minX, envelope.minY, envelope.maxX, envelope.maxY) else {
            throw context.failure("create rectangle")
        }
        return Geometry(context: context, taking: g)
    }

    /// Reads Well-Known Text.
    public convenience init(wkt: String, in context: GEOSContext) throws(SpatialError) {
        guard let reader = GEOSWKTReader_create_r(context.handle) else { throw context.failure("create WKT reader") }
        defer { GEOSWKTReader_destroy_r(context.handle, reader) }
        guard let g = GEOSWKTReader_read_r(context.handle, reader, wkt) else { throw context.failure("read WKT") }
        self.init(context: context, taking: g)
    }

    private static func sequence(_ points: [PlanePoint], in context: GEOSContext) throws(SpatialError) -> OpaquePointer {
        guard let seq = GEOSCoordSeq_create_r(context.handle, UInt32(points.count), 2) else { throw context.failure("create coordinate sequence") }
        for (i, p) in points.enumerated() {
            guard p.x.isFinite, p.y.isFinite else {
                GEOSCoordSeq_destroy_r(context.handle, seq)
                throw .invalidInput("point \(i) (\(p.x), \(p.y)) is not finite")
            }
            GEOSCoordSeq_setXY_r(context.handle, seq, UInt32(i), p.x, p.y)
        }
        return seq
    }

    private static func ring(_ points: [PlanePoint], in context: GEOSContext) throws(SpatialError) -> OpaquePointer {
        var closed = points
        if let first = points.first, first != points.last { closed.append(first) }
        guard closed.count >= 4 else { throw .invalidInput("a polygon ring needs at least 3 distinct points, got \(points.count)") }
        let seq = try sequence(closed, in: context)
        guard let r = GEOSGeom_createLinearRing_r(context.handle, seq) else { throw context.failure("create linear ring") }
        return r
    }

    // MARK: Properties and predicates

    /// Well-Known Text, trimmed of needless zeros.
    public var wkt: String {
        guard let writer = GEOSWKTWriter_create_r(context.handle) else { return "<WKT writer unavailable>" }
        defer { GEOSWKTWriter_destroy_r(context.handle, writer) }
        GEOSWKTWriter_setTrim_r(context.handle, writer, 1)
        guard let text = GEOSWKTWriter_write_r(context.handle, writer, pointer) else { return "<WKT unavailable>" }
        defer { GEOSFree_r(context.handle, text) }
        return String(cString: text)
    }

    public var description: String { wkt }

    public var isEmpty: Bool { GEOSisEmpty_r(context.handle, pointer) == 1 }

    /// The bounding rectangle; nil for an empty geometry.
    public var envelope: Envelope? {
        guard !isEmpty else { return nil }
        var e = Envelope(minX: 0, minY: 0, maxX: 0, maxY: 0)
        guard GEOSGeom_getXMin_r(context.handle, pointer, &e.minX) == 1,
              GEOSGeom_getYMin_r(context.handle, pointer, &e.minY) == 1,
              GEOSGeom_getXMax_r(context.handle, pointer, &e.maxX) == 1,
              GEOSGeom_getYMax_r(context.handle, pointer, &e.maxY) == 1 else { return nil }
        return e
    }

    public func area() throws(SpatialError) -> Double {
        var a = 0.0
        guard GEOSArea_r(context.handle, pointer, &a) == 1 else { throw context.failure("area") }
        return a
    }

    /// Shortest Euclidean distance to `other`.
    public func distance(to other: Geometry) throws(SpatialError) -> Double {
        var d = 0.0
        guard GEOSDistance_r(context.handle, pointer, other.pointer, &d) == 1 else { throw context.failure("distance") }
        return d
    }

    /// The area within `width` of this geometry.
    public func buffer(_ width: Double, quadrantSegments: Int32 = 8) throws(SpatialError) -> Geometry {
        guard width.isFinite else { throw .invalidInput("buffer width \(width) is not finite") }
        guard let g = GEOSBuffer_r(context.handle, pointer, width, quadrantSegments) else { throw context.failure("buffer") }
        return Geometry(context: context, taking: g)
    }

    public func contains(_ other: Geometry) throws(SpatialError) -> Bool {
        try predicate("contains", GEOSContains_r(context.handle, pointer, other.pointer))
    }

    public func intersects(_ other: Geometry) throws(SpatialError) -> Bool {
        try predicate("intersects", GEOSIntersects_r(context.handle, pointer, other.pointer))
    }

    /// Reads Well-Known Binary (ISO or extended, either byte order, with or
    /// without Z and M), as GeoPackage and PostGIS store geometries.
    public convenience init(wkb: [UInt8], in context: GEOSContext) throws(SpatialError) {
        guard let reader = GEOSWKBReader_create_r(context.handle) else { throw context.failure("create WKB reader") }
        defer { GEOSWKBReader_destroy_r(context.handle, reader) }
        let g = wkb.withUnsafeBufferPointer { GEOSWKBReader_read_r(context.handle, reader, $0.baseAddress, $0.count) }
        guard let g else { throw context.failure("read WKB") }
        self.init(context: context, taking: g)
    }

    /// The geometry's type as GEOS names it: Point, LineString, Polygon, MultiPoint, ...
    public var typeName: String {
        guard let name = GEOSGeomType_r(context.handle, pointer) else { return "unknown" }
        defer { GEOSFree_r(context.handle, name) }
        return String(cString: name)
    }

    /// A point's x and y; nil for any other geometry or an empty point.
    public var pointXY: PlanePoint? {
        guard GEOSGeomTypeId_r(context.handle, pointer) == Int32(GEOS_POINT.rawValue), !isEmpty else { return nil }
        var x = 0.0, y = 0.0
        guard GEOSGeomGetX_r(context.handle, pointer, &x) == 1, GEOSGeomGetY_r(context.handle, pointer, &y) == 1 else { return nil }
        return PlanePoint(x: x, y: y)
    }

    /// The centre of mass (area-weighted for polygons, length-weighted for
    /// lines); nil for an empty geometry.
    public func centroid() throws(SpatialError) -> PlanePoint? {
        guard !isEmpty else { return nil }
        guard let c = GEOSGetCentroid_r(context.handle, pointer) else { throw context.failure("centroid") }
        defer { GEOSGeom_destroy_r(context.handle, c) }
        var x = 0.0, y = 0.0
        guard GEOSGeomGetX_r(context.handle, c, &x) == 1, GEOSGeomGetY_r(context.handle, c, &y) == 1 else { return nil }
        return PlanePoint(x: x, y: y)
    }

    /// The polygons the line work of `lines` encloses (GEOS's polygonizer): ways
    /// joined end to end into rings, as a multipolygon's members are assembled.
    public static func polygonize(_ lines: [Geometry], in context: GEOSContext) throws(SpatialError) -> Geometry {
        let pointers: [OpaquePointer?] = lines.map { $0.pointer }
        let g = pointers.withUnsafeBufferPointer { buffer in
            GEOSPolygonize_r(context.handle, buffer.baseAddress, UInt32(buffer.count))
        }
        guard let g else { throw context.failure("polygonize") }
        return Geometry(context: context, taking: g)
    }

    /// Everything this geometry covers, merged (overlaps dissolved).
    public func unaryUnion() throws(SpatialError) -> Geometry {
        guard let g = GEOSUnaryUnion_r(context.handle, pointer) else { throw context.failure("union") }
        return Geometry(context: context, taking: g)
    }

    /// This geometry without `other`.
    public func difference(_ other: Geometry) throws(SpatialError) -> Geometry {
        guard let g = GEOSDifference_r(context.handle, pointer, other.pointer) else { throw context.failure("difference") }
        return Geometry(context: context, taking: g)
    }

    /// A prepared form for many containment tests against this geometry.
    public func prepared() throws(SpatialError) -> PreparedGeometry {
        guard let p = GEOSPrepare_r(context.handle, pointer) else { throw context.failure("prepare") }
        return PreparedGeometry(geometry: self, prepared: p)
    }

    func predicate(_ name: String, _ result: CChar) throws(SpatialError) -> Bool {
        switch result {
        case 0: return false
        case 1: return true
        default: throw context.failure(name)
        }
    }
}

/// A geometry indexed for repeated predicates (GEOS prepared geometry).
public final class PreparedGeometry {
    public let geometry: Geometry
    private let prepared: OpaquePointer

    init(geometry: Geometry, prepared: OpaquePointer) {
        self.geometry = geometry
        self.prepared = prepared
    }

    deinit {
        GEOSPreparedGeom_destroy_r(geometry.context.handle, prepared)
    }

    public func contains(_ other: Geometry) throws(SpatialError) -> Bool {
        try geometry.predicate("prepared contains", GEOSPreparedContains_r(geometry.context.handle, prepared, other.pointer))
    }

    /// Whether the point `x`, `y` lies inside (not on the boundary).
    public func contains(x: Double, y: Double) throws(SpatialError) -> Bool {
        try contains(Geometry.point(x: x, y: y, in: geometry.context))
    }

    public func intersects(_ other: Geometry) throws(SpatialError) -> Bool {
        try geometry.predicate("prepared intersects", GEOSPreparedIntersects_r(geometry.context.handle, prepared, other.pointer))
    }
}
