import Foundation
import Geodesy

/// The thresholds of the stay-point rule behind visits (docs/Visits.md).
public struct VisitSettings: Equatable, Sendable {
    /// Metres: a stay is a run of fixes each less than this far (WGS84
    /// geodesic) from the run's first fix. trackintel's `dist_threshold`.
    public var radius: Double
    /// Seconds: the run lasts at least this long. trackintel's `time_threshold`.
    public var minimumDuration: Double
    /// Seconds: two consecutive fixes further apart in time than this break
    /// the run (the device does not know where it was in between).
    /// trackintel's `gap_threshold`.
    public var gap: Double

    /// trackintel's defaults: 100 m, 5 minutes, gaps of more than 15 minutes.
    public init(radius: Double = 100, minimumDuration: Double = 300, gap: Double = 900) {
        self.radius = radius
        self.minimumDuration = minimumDuration
        self.gap = gap
    }
}

/// A place the walker stayed, as `CLVisit` describes one.
public struct Visit: Equatable, Sendable {
    /// The stay's centre: the mean latitude and the circular mean longitude of its fixes.
    public var coordinate: Coordinate
    /// Metres: the largest geodesic distance from ``coordinate`` to a fix of the stay.
    public var horizontalAccuracy: Double
    /// The stay's first fix, seconds since 1970.
    public var arrival: Double
    /// When the walker was known to have left, seconds since 1970: the first
    /// fix outside the radius (or the last fix before a gap); nil while still there.
    public var departure: Double?
    /// How many fixes the stay had when the visit was reported.
    public var fixes: Int

    /// A visit; `departure` nil while the walker is still there.
    public init(coordinate: Coordinate, horizontalAccuracy: Double, arrival: Double, departure: Double?, fixes: Int) {
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.arrival = arrival
        self.departure = departure
        self.fixes = fixes
    }
}

/// Stay-point detection over a stream of fixes, the sliding rule of Li et
/// al. (2008) as trackintel's `generate_staypoints(method="sliding")`
/// implements it: a run starts at a fix; each later fix less than
/// ``VisitSettings/radius`` metres from the run's first fix joins it; the
/// first fix at or beyond the radius ends it, and the run was a stay when
/// that fix came at least ``VisitSettings/minimumDuration`` seconds after
/// the run's first. That fix starts the next run.
///
/// Reported as iOS reports visits, twice: an arrival (no departure) as soon
/// as a fix of the run is ``VisitSettings/minimumDuration`` after its first,
/// and a departure (both times) at the first fix outside. A run that first
/// qualifies at the fix that ends it gives both at that fix. A stay still
/// open when the fixes end has had its arrival only. A gap of more than
/// ``VisitSettings/gap`` seconds between two fixes restarts the run; a stay
/// already announced departs at the last fix before the gap (trackintel
/// drops such a run; an arrival once delivered is never taken back).
public struct VisitDetector: Sendable {
    /// The thresholds.
    public let settings: VisitSettings
    private var run: [Coordinate] = []
    private var first: Location?
    private var last: Location?
    private var announced = false
    private var sumLatitude = 0.0
    private var sumSine = 0.0
    private var sumCosine = 0.0

    /// A detector with `settings`, before any fix.
    public init(settings: VisitSettings = VisitSettings()) {
        self.settings = settings
    }

    /// The stay announced and not yet left, if any, as its arrival visit now.
    public var current: Visit? { announced ? visit(departure: nil) : nil }

    /// Takes the next fix (in time order) and returns the visits it reports,
    /// in order: none, an arrival, a departure, or an arrival and its departure.
    public mutating func add(_ fix: Location) -> [Visit] {
        guard let start = first, let previous = last else {
            begin(fix)
            return []
        }
        if fix.timestamp - previous.timestamp > settings.gap {
            let left = announced ? [visit(departure: previous.timestamp)] : []
            begin(fix)
            return left
        }
        if Geodesic.wgs84.distance(start.coordinate, fix.coordinate) >= settings.radius {
            var reported: [Visit] = []
            if fix.timestamp - start.timestamp >= settings.minimumDuration {
                if !announced { reported.append(visit(departure: nil)) }
                reported.append(visit(departure: fix.timestamp))
            }
            begin(fix)
            return reported
        }
        join(fix)
        guard !announced, fix.timestamp - start.timestamp >= settings.minimumDuration else { return [] }
        announced = true
        return [visit(departure: nil)]
    }

    private mutating func begin(_ fix: Location) {
        run.removeAll(keepingCapacity: true)
        sumLatitude = 0
        sumSine = 0
        sumCosine = 0
        announced = false
        first = fix
        join(fix)
    }

    private mutating func join(_ fix: Location) {
        run.append(fix.coordinate)
        last = fix
        sumLatitude += fix.coordinate.latitude
        let longitude = fix.coordinate.longitude * .pi / 180
        sumSine += sin(longitude)
        sumCosine += cos(longitude)
    }

    /// The run as a visit: trackintel's centroid (mean latitude, circular
    /// mean longitude) over every fix of the run.
    private func visit(departure: Double?) -> Visit {
        let n = Double(run.count)
        let centre = Coordinate(computedLatitude: sumLatitude / n, longitude: atan2(sumSine / n, sumCosine / n) * 180 / .pi)
        let radius = run.reduce(0.0) { max($0, Geodesic.wgs84.distance(centre, $1)) }
        return Visit(coordinate: centre, horizontalAccuracy: radius, arrival: first?.timestamp ?? 0, departure: departure, fixes: run.count)
    }
}
