#if !canImport(Darwin)
import CoreLocation
import Foundation
import Geodesy
import Streets
import Synchronization

/// How a route travels, with Apple's raw values.
public struct MKDirectionsTransportType: OptionSet, Sendable {
    /// Apple's bits: 1 automobile, 2 walking, 4 transit.
    public let rawValue: UInt
    /// Creates a set from Apple's raw value.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// By car (not routed by Stroll: `MKError.directionsNotFound`).
    public static let automobile = MKDirectionsTransportType(rawValue: 1 << 0)
    /// On foot: the only type Stroll routes.
    public static let walking = MKDirectionsTransportType(rawValue: 1 << 1)
    /// By public transport (not routed by Stroll).
    public static let transit = MKDirectionsTransportType(rawValue: 1 << 2)
    /// Any type: walking, in Stroll.
    public static let any = MKDirectionsTransportType(rawValue: 0x0FFF_FFFF)
}

/// A route from a source to a destination, answered offline from the
/// streets of an OpenStreetMap extract (`MKDirections.useStreets(from:)`):
/// the exact shortest walking route of `Streets`, its time at 1.4 m/s.
@MainActor
open class MKDirections: NSObject {
    /// The walking speed of `expectedTravelTime`, in metres per second (a brisk adult pace; MapKit's is not published).
    public static let walkingSpeed = 1.4

    /// The streets every `MKDirections` routes on; nil until `useStreets(from:)`.
    nonisolated private static let streets = Mutex<StreetNetwork?>(nil)

    /// Routes are answered on the walking network of this OpenStreetMap
    /// extract (`.osm.pbf` or `.osm`) from now on, and `MKLocalSearch` looks
    /// in its named points of interest. Throws when it cannot be read or
    /// holds no walkable way.
    nonisolated public static func useStreets(from path: String) throws {
        let network = try StreetNetwork.load(path)
        let places = try PointsOfInterest.load(path)
        streets.withLock { $0 = network }
        MKLocalSearch.pointsOfInterest.withLock { $0 = places }
    }

    /// Forgets the streets and their points of interest: directions and
    /// searches fail as MapKit's do offline (`MKError.serverFailure`).
    nonisolated public static func removeStreets() {
        streets.withLock { $0 = nil }
        MKLocalSearch.pointsOfInterest.withLock { $0 = nil }
    }

    /// A source, a destination and how to travel between them.
    open class Request: NSObject {
        /// Where the route starts.
        open var source: MKMapItem?
        /// Where the route ends.
        open var destination: MKMapItem?
        /// How the route travels (default `.any`, which Stroll walks).
        open var transportType: MKDirectionsTransportType = .any
        /// Whether more than one route is wanted (Stroll gives the shortest only).
        open var requestsAlternateRoutes = false

        /// An empty request.
        public override init() {
            super.init()
        }
    }

    /// The routes found.
    open class Response: NSObject {
        /// The request's source.
        public let source: MKMapItem
        /// The request's destination.
        public let destination: MKMapItem
        /// The routes, shortest first (one in Stroll).
        public let routes: [MKRoute]

        init(source: MKMapItem, destination: MKMapItem, routes: [MKRoute]) {
            self.source = source
            self.destination = destination
            self.routes = routes
        }
    }

    /// The travel time and distance without the route.
    open class ETAResponse: NSObject {
        /// The request's source.
        public let source: MKMapItem
        /// The request's destination.
        public let destination: MKMapItem
        /// Seconds at `MKDirections.walkingSpeed`.
        public let expectedTravelTime: TimeInterval
        /// Metres along the route.
        public let distance: CLLocationDistance
        /// When the walk would start: now.
        public let expectedDepartureDate: Date
        /// When the walk would end.
        public let expectedArrivalDate: Date
        /// How the route travels: walking.
        public let transportType: MKDirectionsTransportType

        init(_ response: Response, route: MKRoute, departure: Date) {
            source = response.source
            destination = response.destination
            expectedTravelTime = route.expectedTravelTime
            distance = route.distance
            expectedDepartureDate = departure
            expectedArrivalDate = departure.addingTimeInterval(route.expectedTravelTime)
            transportType = route.transportType
        }
    }

    private let request: Request
    /// Whether a calculation is under way.
    public private(set) var isCalculating = false

    /// Directions for `request`.
    public init(request: Request) {
        self.request = request
        super.init()
    }

    /// Cancels nothing: Stroll answers at once.
    open func cancel() {}

    /// The routes, or `MKError`: `serverFailure` without streets,
    /// `directionsNotFound` for another transport type or no walkable path,
    /// `placemarkNotFound` without a source or destination.
    open func calculate() async throws -> Response {
        try route()
    }

    /// The routes, given to `completionHandler` on the main actor.
    open func calculate(completionHandler: @escaping @MainActor (Response?, (any Error)?) -> Void) {
        isCalculating = true
        Task { @MainActor in
            self.isCalculating = false
            do {
                completionHandler(try self.route(), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    /// The travel time and distance, or the errors of `calculate()`.
    open func calculateETA() async throws -> ETAResponse {
        let response = try route()
        guard let route = response.routes.first else { throw MKError(.directionsNotFound) }
        return ETAResponse(response, route: route, departure: Date())
    }

    /// The travel time and distance, given to `completionHandler` on the main actor.
    open func calculateETA(completionHandler: @escaping @MainActor (ETAResponse?, (any Error)?) -> Void) {
        isCalculating = true
        Task { @MainActor in
            self.isCalculating = false
            do {
                let response = try self.route()
                guard let route = response.routes.first else { throw MKError(.directionsNotFound) }
                completionHandler(ETAResponse(response, route: route, departure: Date()), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    private func route() throws(MKError) -> Response {
        guard let network = Self.streets.withLock({ $0 }) else {
            throw MKError(.serverFailure, reason: "no OpenStreetMap extract: call MKDirections.useStreets(from:) first")
        }
        guard let source = request.source, let destination = request.destination else {
            throw MKError(.placemarkNotFound, reason: "the request needs a source and a destination")
        }
        guard request.transportType.contains(.walking) else {
            throw MKError(.directionsNotFound, reason: "Stroll routes walking only")
        }
        let from: Coordinate, to: Coordinate
        do {
            from = try Coordinate(latitude: source.placemark.coordinate.latitude, longitude: source.placemark.coordinate.longitude)
            to = try Coordinate(latitude: destination.placemark.coordinate.latitude, longitude: destination.placemark.coordinate.longitude)
        } catch {
            throw MKError(.placemarkNotFound, reason: error.description)
        }
        do {
            let route = try network.route(from: from, to: to)
            return Response(source: source, destination: destination, routes: [MKRoute(route, speed: Self.walkingSpeed)])
        } catch {
            throw MKError(.directionsNotFound, reason: error.description)
        }
    }
}
#endif
