import Geodesy
import GEOS

/// A region to monitor, as `CLCircularRegion` (or a polygon, e.g. a campus outline).
public struct MonitoredRegion: Equatable, Sendable {
    /// The outline of a region: a circle or a polygon.
    public enum Shape: Equatable, Sendable {
        case circle(center: Coordinate, radius: Double)
        /// A closed outline; inside is tested in a local metric plane through GEOS.
        case polygon([Coordinate])
    }

    public var identifier: String
    public var shape: Shape
    public var notifyOnEntry = true
    public var notifyOnExit = true

    public init(identifier: String, shape: Shape, notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
        self.identifier = identifier
        self.shape = shape
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    public static func circle(_ identifier: String, center: Coordinate, radius: Double) -> MonitoredRegion {
        MonitoredRegion(identifier: identifier, shape: .circle(center: center, radius: radius))
    }
}

/// Why a region cannot be monitored.
public enum RegionError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooMany(limit: Int)
    case invalid(identifier: String, reason: String)

    public var description: String {
        switch self {
        case .tooMany(let limit): return "at most \(limit) regions can be monitored at once"
        case .invalid(let id, let reason): return "region \(id): \(reason)"
        }
    }
}

/// Tracks inside/outside for each region and reports crossings.
struct RegionMonitor {
    private enum Test {
        case circle(GeodesicDistanceFrame, radius: Double)
        case polygon(LocalProjection, PreparedGeometry)
    }

    private let regions: [MonitoredRegion]
    private let tests: [Test]
    private var inside: [Bool?]

    /// Builds the tests; polygon regions need a GEOS context of the caller's thread.
    init(regions: [MonitoredRegion], limit: Int) throws(RegionError) {
        guard regions.count <= limit else { throw .tooMany(limit: limit) }
        var tests: [Test] = []
        var context: GEOSContext?
        for region in regions {
            switch region.shape {
            case .circle(let center, let radius):
                guard radius.isFinite, radius > 0 else { throw .invalid(identifier: region.identifier, reason: "radius \(radius) is not a positive number of metres") }
                tests.append(.circle(GeodesicDistanceFrame(origin: center), radius: radius))
            case .polygon(let outline):
                guard outline.count >= 3 else { throw .invalid(identifier: region.identifier, reason: "a polygon needs at least 3 points") }
                let latitude = outline.map(\.latitude).reduce(0, +) / Double(outline.count)
                let longitude = outline.map(\.longitude).reduce(0, +) / Double(outline.count)
                let projection = LocalProjection(origin: (try? Coordinate(latitude: latitude, longitude: longitude)) ?? outline[0])
                do {
                    let ctx = try context ?? GEOSContext()
                    context = ctx
                    let polygon = try Geometry.polygon(coordinates: outline, projection: projection, in: ctx)
                    tests.append(.polygon(projection, try polygon.prepared()))
                } catch {
                    throw .invalid(identifier: region.identifier, reason: "\(error)")
                }
            }
        }
        self.regions = regions
        self.tests = tests
        inside = Array(repeating: nil, count: regions.count)
    }

    var isEmpty: Bool { regions.isEmpty }

    /// Whether `coordinate` is inside region `index`.
    private func contains(_ index: Int, _ coordinate: Coordinate) -> Bool {
        switch tests[index] {
        case .circle(let frame, let radius):
            return frame.distance(to: coordinate) <= radius
        case .polygon(let projection, let prepared):
            let p = projection.project(coordinate)
            return (try? prepared.contains(x: p.x, y: p.y)) ?? false
        }
    }

    /// The events this position causes: the initial state on the first call, then crossings.
    mutating func update(_ coordinate: Coordinate, at time: Double, into events: inout [LocationEvent]) {
        for i in regions.indices {
            let now = contains(i, coordinate)
            let region = regions[i]
            switch inside[i] {
            case nil:
                events.append(.regionState(id: region.identifier, inside: now, timestamp: time))
            case false? where now:
                if region.notifyOnEntry { events.append(.regionEntered(id: region.identifier, timestamp: time)) }
            case true? where !now:
                if region.notifyOnExit { events.append(.regionExited(id: region.identifier, timestamp: time)) }
            default:
                break
            }
            inside[i] = now
        }
    }
}
