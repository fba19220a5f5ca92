import Foundation
import Geodesy
import GEOS

/// Where the receiver is, as far as its signal is concerned: what it reports
/// as its accuracy, how fast its error drifts, how often it loses the signal
/// and how often multipath throws it off. The presets and their sources are
/// in docs/Receiver.md.
public enum Environment: String, CaseIterable, Sendable {
    case openSky = "open-sky"
    case urban
    case urbanCanyon = "urban-canyon"
    case indoor
    /// No signal at all (an environments file only).
    case tunnel

    /// The presets `--environment` offers (a tunnel is a place, not a walk).
    public static let presets: [Environment] = [.openSky, .urban, .urbanCanyon, .indoor]

    /// How degraded the signal is: where areas overlap, the higher one wins.
    public var severity: Int { Environment.allCases.firstIndex(of: self) ?? 0 }

    public var preset: EnvironmentPreset {
        switch self {
        case .openSky:
            return EnvironmentPreset(medianAccuracy: 5, spread: 0.15, tau: 60)
        case .urban:
            return EnvironmentPreset(medianAccuracy: 12, spread: 0.30, tau: 30,
                                     outages: Episodes(meanGap: 1800, meanLength: 6),
                                     multipath: Episodes(meanGap: 600, meanLength: 5), multipathOffset: 2.5)
        case .urbanCanyon:
            return EnvironmentPreset(medianAccuracy: 30, spread: 0.40, tau: 20,
                                     outages: Episodes(meanGap: 300, meanLength: 10),
                                     multipath: Episodes(meanGap: 120, meanLength: 4), multipathOffset: 3)
        case .indoor:
            return EnvironmentPreset(medianAccuracy: 65, spread: 0.25, tau: 120,
                                     outages: Episodes(meanGap: 180, meanLength: 20))
        case .tunnel:
            return EnvironmentPreset(medianAccuracy: 65, spread: 0, tau: 60, alwaysLost: true)
        }
    }
}

/// Episodes that come and go at random: a two-state chain stepped once a
/// second, leaving the quiet state with probability 1 − e^(−1/meanGap) and
/// the episode with 1 − e^(−1/meanLength).
public struct Episodes: Equatable, Sendable {
    /// Mean seconds between episodes.
    public var meanGap: Double
    /// Mean seconds an episode lasts.
    public var meanLength: Double

    public init(meanGap: Double, meanLength: Double) {
        self.meanGap = meanGap
        self.meanLength = meanLength
    }
}

/// One environment's receiver behaviour.
public struct EnvironmentPreset: Equatable, Sendable {
    /// The median reported horizontal accuracy (68 % radius), metres.
    public var medianAccuracy: Double
    /// The log-normal spread of the reported accuracy: it is
    /// `medianAccuracy · e^(spread · y)`, y a unit Gauss-Markov process.
    public var spread: Double
    /// Correlation time of the error and of the accuracy, seconds.
    public var tau: Double
    public var outages: Episodes?
    public var multipath: Episodes?
    /// How far a multipath episode throws the fix, in reported accuracies.
    public var multipathOffset: Double
    /// Every fix is lost (a tunnel).
    public var alwaysLost: Bool

    public init(medianAccuracy: Double, spread: Double, tau: Double, outages: Episodes? = nil, multipath: Episodes? = nil,
                multipathOffset: Double = 0, alwaysLost: Bool = false) {
        self.medianAccuracy = medianAccuracy
        self.spread = spread
        self.tau = tau
        self.outages = outages
        self.multipath = multipath
        self.multipathOffset = multipathOffset
        self.alwaysLost = alwaysLost
    }
}

/// A stretch of ground with its environment: a polygon (outer ring and holes).
public struct EnvironmentArea: Equatable, Sendable {
    public var environment: Environment
    public var outer: [Coordinate]
    public var holes: [[Coordinate]]
    /// The feature's `name` or `id`, for messages.
    public var name: String?

    public init(environment: Environment, outer: [Coordinate], holes: [[Coordinate]] = [], name: String? = nil) {
        self.environment = environment
        self.outer = outer
        self.holes = holes
        self.name = name
    }

    /// Reads `--environments FILE`: GeoJSON Polygon and MultiPolygon features,
    /// each with an `environment` property (a preset's name or `tunnel`).
    public static func loadGeoJSON(_ path: String) throws(EnvironmentFileError) -> [EnvironmentArea] {
        let features = try geoJSONFeatures(path)
        let names = Environment.allCases.map(\.rawValue).joined(separator: ", ")
        var areas: [EnvironmentArea] = []
        for (i, f) in features.enumerated() {
            func fail(_ reason: String) -> EnvironmentFileError { EnvironmentFileError(file: path, reason: "feature \(i): \(reason)", unreadable: false) }
            guard let feature = f as? [String: Any], let geometry = feature["geometry"] as? [String: Any] else { throw fail("no geometry") }
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let value = properties["environment"] as? String else { throw fail("no environment property (one of \(names))") }
            guard let environment = Environment(rawValue: value) else { throw fail("unknown environment \"\(value)\"; the environments are \(names)") }
            let name = (properties["name"] as? String) ?? (properties["id"] as? String) ?? (feature["id"] as? String)
            func ring(_ value: Any?) throws(EnvironmentFileError) -> [Coordinate] {
                guard let positions = value as? [Any], positions.count >= 4 else { throw fail("a polygon ring needs at least 4 positions") }
                var ring: [Coordinate] = []
                for p in positions {
                    guard let pair = p as? [Any], pair.count >= 2, let lon = (pair[0] as? NSNumber)?.doubleValue,
                          let lat = (pair[1] as? NSNumber)?.doubleValue else { throw fail("a position is not [longitude, latitude]") }
                    do { ring.append(try Coordinate(latitude: lat, longitude: lon)) } catch { throw fail(error.description) }
                }
                if ring.first == ring.last { ring.removeLast() }
                guard ring.count >= 3 else { throw fail("a polygon ring needs at least 3 distinct corners") }
                return ring
            }
            func polygon(_ value: Any?) throws(EnvironmentFileError) -> EnvironmentArea {
                guard let rings = value as? [Any], !rings.isEmpty else { throw fail("a polygon has no rings") }
                var holes: [[Coordinate]] = []
                for r in rings.dropFirst() { holes.append(try ring(r)) }
                return EnvironmentArea(environment: environment, outer: try ring(rings[0]), holes: holes, name: name)
            }
            switch geometry["type"] as? String {
            case "Polygon":
                areas.append(try polygon(geometry["coordinates"]))
            case "MultiPolygon":
                guard let polygons = geometry["coordinates"] as? [Any], !polygons.isEmpty else { throw fail("a MultiPolygon has no polygons") }
                for p in polygons { areas.append(try polygon(p)) }
            case let other:
                throw fail("only Polygon and MultiPolygon features describe environments, not \(other ?? "a geometry without a type")")
            }
        }
        guard !areas.isEmpty else { throw EnvironmentFileError(file: path, reason: "holds no polygons", unreadable: false) }
        // Every area must make a GEOS polygon, so a replay never meets one it cannot test.
        do {
            let context = try GEOSContext()
            for (i, area) in areas.enumerated() { _ = try EnvironmentShape(area, context: context, index: i) }
        } catch let error as EnvironmentFileError {
            throw EnvironmentFileError(file: path, reason: error.reason, unreadable: false)
        } catch {
            throw EnvironmentFileError(file: path, reason: "\(error)", unreadable: false)
        }
        return areas
    }
}

/// An environments file that cannot be used: the same error as a regions file's.
public typealias EnvironmentFileError = RegionFileError

/// An area made testable: its polygon in a local metric plane, prepared by GEOS.
struct EnvironmentShape {
    let environment: Environment
    let minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double
    let projection: LocalProjection
    let prepared: PreparedGeometry

    init(_ area: EnvironmentArea, context: GEOSContext, index: Int) throws {
        environment = area.environment
        let lats = area.outer.map(\.latitude), lons = area.outer.map(\.longitude)
        minLatitude = lats.min() ?? 0
        maxLatitude = lats.max() ?? 0
        minLongitude = lons.min() ?? 0
        maxLongitude = lons.max() ?? 0
        let origin = (try? Coordinate(latitude: (minLatitude + maxLatitude) / 2, longitude: (minLongitude + maxLongitude) / 2)) ?? area.outer[0]
        let projection = LocalProjection(origin: origin)
        self.projection = projection
        func plane(_ ring: [Coordinate]) -> [PlanePoint] { ring.map { let p = projection.project($0); return PlanePoint(x: p.x, y: p.y) } }
        do {
            prepared = try Geometry.polygon(shell: plane(area.outer), holes: area.holes.map(plane), in: context).prepared()
        } catch {
            throw EnvironmentFileError(file: "", reason: "feature \(index)\(area.name.map { " (\($0))" } ?? ""): not a polygon GEOS can use: \(error)", unreadable: false)
        }
    }

    func contains(_ c: Coordinate) -> Bool {
        guard c.latitude >= minLatitude, c.latitude <= maxLatitude, c.longitude >= minLongitude, c.longitude <= maxLongitude else { return false }
        let p = projection.project(c)
        return (try? prepared.contains(x: p.x, y: p.y)) ?? false
    }
}

/// How the receiver starts: `ios` gives the coarse first fixes iOS delivers
/// after `startUpdatingLocation()` and after an outage.
public enum WarmUp: String, CaseIterable, Sendable {
    case none
    case ios

    /// The accuracy the warm-up reports `elapsed` seconds after the receiver
    /// started (`afterOutage` false) or found the signal again; the reported
    /// accuracy is the larger of this and the environment's.
    public static func iosAccuracy(elapsed: Double, afterOutage: Bool) -> Double {
        if afterOutage {
            return elapsed < 2 ? 65 : 65 * pow(2, -(elapsed - 2) / 2.5)
        }
        if elapsed < 3 { return 1414 }
        return elapsed < 6 ? 65 : 65 * pow(2, -(elapsed - 6) / 2.5)
    }
}
