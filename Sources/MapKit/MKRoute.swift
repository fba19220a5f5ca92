#if !canImport(Darwin)
import CoreLocation
import Foundation
import Geodesy
import Streets

/// A route: its line, length, time and steps.
open class MKRoute: NSObject {
    /// One step: a stretch along one street, and what to do to take it.
    open class Step: NSObject {
        /// The step's line.
        public let polyline: MKPolyline
        /// What to do: "Turn left onto Rue Grimaldi", or "" for the start.
        public let instructions: String
        /// Metres along the step.
        public let distance: CLLocationDistance
        /// How the step travels: walking.
        public let transportType: MKDirectionsTransportType = .walking
        /// A notice for the step (none in Stroll).
        public let notice: String? = nil

        init(_ points: [CLLocationCoordinate2D], instructions: String, distance: CLLocationDistance) {
            polyline = MKPolyline(coordinates: points, count: points.count)
            self.instructions = instructions
            self.distance = distance
        }
    }

    /// The route's line.
    public let polyline: MKPolyline
    /// Metres along the route.
    public let distance: CLLocationDistance
    /// Seconds at the walking speed.
    public let expectedTravelTime: TimeInterval
    /// The steps: the start, one per street, the arrival.
    public let steps: [Step]
    /// The longest street's name, as MapKit names a route by its main road.
    public let name: String
    /// How the route travels: walking.
    public let transportType: MKDirectionsTransportType = .walking
    /// Notices for the route (none in Stroll).
    public let advisoryNotices: [String] = []

    init(_ route: StreetRoute, speed: Double) {
        let points = route.coordinates.map { CLLocationCoordinate2D(latitude: $0.latitude, longitude: $0.longitude) }
        polyline = MKPolyline(coordinates: points, count: points.count)
        distance = route.distance
        expectedTravelTime = route.distance / speed
        name = route.stretches.filter { $0.name != nil }.max { $0.distance < $1.distance }?.name ?? ""
        var steps = [Step(Array(points.prefix(1)), instructions: "", distance: 0)]
        for (k, stretch) in route.stretches.enumerated() {
            let street = stretch.name ?? "the path"
            let instructions: String
            if k == 0 {
                let heading = Self.azimuth(route.coordinates, from: stretch.range.lowerBound)
                instructions = "Head \(Self.compass(heading)) on \(street)"
            } else {
                let before = Geodesic.wgs84.inverse(route.coordinates[stretch.range.lowerBound - 1], route.coordinates[stretch.range.lowerBound]).azimuth2
                // An angle folded into [-180, 180] as a longitude is.
                let turn = normalizedLongitude(Self.azimuth(route.coordinates, from: stretch.range.lowerBound) - before)
                instructions = turn > 30 ? "Turn right onto \(street)" : turn < -30 ? "Turn left onto \(street)" : "Continue onto \(street)"
            }
            steps.append(Step(Array(points[stretch.range]), instructions: instructions, distance: stretch.distance))
        }
        steps.append(Step(Array(points.suffix(1)), instructions: "Arrive at the destination", distance: 0))
        self.steps = steps
    }

    /// The azimuth of the segment that starts at `index`.
    private static func azimuth(_ line: [Coordinate], from index: Int) -> Double {
        guard index + 1 < line.count else { return 0 }
        return Geodesic.wgs84.inverse(line[index], line[index + 1]).azimuth1
    }

    /// The nearest of the eight compass points.
    private static func compass(_ azimuth: Double) -> String {
        let names = ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"]
        let k = Int(((azimuth + 360 + 22.5) / 45).rounded(.down)) % 8
        return names[k]
    }
}
#endif
