#if !canImport(Darwin)
import CoreLocation
import Foundation
import Geodesy
import Map
import Streets
import Synchronization

/// A search for points of interest by words or around a point, answered
/// offline from the named places of an OpenStreetMap extract
/// (`MKDirections.useStreets(from:)` names it for directions and search
/// alike): `Streets`' `PointsOfInterest`, whose matching and order
/// docs/Search.md states.
///
/// The map items are every place that matches inside the request's region
/// (MapKit's own answers are capped at a few dozen and ranked by Apple's
/// servers), nearest the region's centre first: by WGS84 geodesic distance to
/// the millimetre, then name, then OpenStreetMap element and id.
@MainActor
open class MKLocalSearch: NSObject {
    /// How a search gives its answer to a completion handler.
    public typealias CompletionHandler = @MainActor (Response?, (any Error)?) -> Void

    /// The points of interest every search looks in; nil until `MKDirections.useStreets(from:)`.
    nonisolated static let pointsOfInterest = Mutex<PointsOfInterest?>(nil)

    /// The kinds of result a request asks for, with Apple's raw values.
    public struct ResultType: OptionSet, Sendable {
        /// Apple's bits: 1 addresses, 2 points of interest, 4 physical features.
        public let rawValue: UInt
        /// Creates a set from Apple's raw value.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Addresses (not searched by Stroll).
        public static let address = ResultType(rawValue: 1 << 0)
        /// Points of interest: what Stroll searches.
        public static let pointOfInterest = ResultType(rawValue: 1 << 1)
        /// Mountains, lakes and other physical features (not searched by Stroll).
        public static let physicalFeature = ResultType(rawValue: 1 << 2)
    }

    /// A search by words in a region.
    open class Request: NSObject {
        /// The words to look for: names and categories ("cafe", "Café de Paris").
        open var naturalLanguageQuery: String?
        /// Where to look; a span of zero (the default) means the whole extract.
        open var region = MKCoordinateRegion()
        /// The kinds of result wanted (default addresses and points of interest).
        open var resultTypes: ResultType = [.address, .pointOfInterest]
        /// Which categories to keep (nil: all).
        open var pointOfInterestFilter: MKPointOfInterestFilter?

        /// An empty request.
        public override init() {
            super.init()
        }

        /// A request for `naturalLanguageQuery` in the whole extract.
        public convenience init(naturalLanguageQuery: String) {
            self.init()
            self.naturalLanguageQuery = naturalLanguageQuery
        }

        /// A request for `naturalLanguageQuery` in `region`.
        public convenience init(naturalLanguageQuery: String, region: MKCoordinateRegion) {
            self.init(naturalLanguageQuery: naturalLanguageQuery)
            self.region = region
        }
    }

    /// What a search found.
    open class Response: NSObject {
        /// The places found, nearest the region's centre first.
        public let mapItems: [MKMapItem]
        /// A region that shows every place found (their bounding box with a
        /// tenth of it as margin each side, at least 0.002° across).
        public let boundingRegion: MKCoordinateRegion

        init(mapItems: [MKMapItem], boundingRegion: MKCoordinateRegion) {
            self.mapItems = mapItems
            self.boundingRegion = boundingRegion
        }
    }

    /// What the request asked, read when the search was made (MapKit copies its request).
    private struct Question {
        var query: String?
        var categories: CategoryFilter
        var area: SearchArea
        var problem: String?
    }

    private let question: Question
    /// Counts the starts and cancels: a handler answers only if nothing came after its start.
    private var generation = 0
    /// Whether a search given a completion handler is under way.
    public private(set) var isSearching = false

    /// A search for `request`'s words in its region.
    public init(request: Request) {
        var question = Question(query: request.naturalLanguageQuery, categories: request.pointOfInterestFilter?.categoryFilter ?? .includingAll,
                                area: .everywhere)
        if (request.naturalLanguageQuery ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            question.problem = "the request has no naturalLanguageQuery"
        } else if !request.resultTypes.contains(.pointOfInterest) {
            question.problem = "Stroll searches points of interest only, and the request's resultTypes leave them out"
        } else if request.region.span.latitudeDelta > 0, request.region.span.longitudeDelta > 0 {
            do {
                question.area = .region(center: try Self.coordinate(request.region.center),
                                        latitudeDelta: request.region.span.latitudeDelta, longitudeDelta: request.region.span.longitudeDelta)
            } catch {
                question.problem = "the request's region: \(error.description)"
            }
        }
        self.question = question
        super.init()
    }

    /// A search for the points of interest in `request`'s circle or region.
    public init(request: MKLocalPointsOfInterestRequest) {
        var question = Question(query: nil, categories: request.pointOfInterestFilter?.categoryFilter ?? .includingAll, area: .everywhere)
        do {
            let center = try Self.coordinate(request.coordinate)
            if let region = request.searchedRegion {
                question.area = .region(center: center, latitudeDelta: region.span.latitudeDelta, longitudeDelta: region.span.longitudeDelta)
            } else {
                question.area = .circle(center: center, radius: request.radius)
            }
        } catch {
            question.problem = "the request's centre: \(error.description)"
        }
        self.question = question
        super.init()
    }

    private static func coordinate(_ c: CLLocationCoordinate2D) throws(Coordinate.Invalid) -> Coordinate {
        try Coordinate(latitude: c.latitude, longitude: c.longitude)
    }

    /// The places found, or `MKError`: `serverFailure` without an extract,
    /// `placemarkNotFound` when nothing matches or the request cannot be asked
    /// (no query, no points of interest among its result types, an invalid centre).
    open func start() async throws -> Response {
        try search()
    }

    /// The places found, given to `completionHandler` on the main actor,
    /// unless the search is cancelled first.
    open func start(completionHandler: @escaping CompletionHandler) {
        isSearching = true
        generation += 1
        let started = generation
        Task { @MainActor in
            guard self.generation == started else { return }
            self.isSearching = false
            do {
                completionHandler(try self.search(), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    /// Cancels a search given a completion handler that has not answered yet:
    /// its handler is not called.
    open func cancel() {
        generation += 1
        isSearching = false
    }

    private func search() throws(MKError) -> Response {
        guard let places = Self.pointsOfInterest.withLock({ $0 }) else {
            throw MKError(.serverFailure, reason: "no OpenStreetMap extract: call MKDirections.useStreets(from:) first")
        }
        if let problem = question.problem { throw MKError(.placemarkNotFound, reason: problem) }
        let found = places.search(question.query, categories: question.categories, in: question.area)
        guard !found.isEmpty else {
            let what = question.query.map { "\"\($0)\"" } ?? "the request's categories"
            throw MKError(.placemarkNotFound, reason: "no point of interest matches \(what) in the area searched")
        }
        let items = found.map { MKMapItem(pointOfInterest: $0.place) }
        let coordinates = found.map(\.place.coordinate)
        let bounds = MapRegion.fitting(coordinates).map {
            MKCoordinateRegion(center: CLLocationCoordinate2D(latitude: $0.center.latitude, longitude: $0.center.longitude),
                               span: MKCoordinateSpan(latitudeDelta: $0.latitudeDelta, longitudeDelta: $0.longitudeDelta))
        }
        return Response(mapItems: items, boundingRegion: bounds ?? MKCoordinateRegion())
    }
}

extension MKMapItem {
    /// A map item for a point of interest of the extract.
    convenience init(pointOfInterest place: PointOfInterest) {
        let placemark = MKPlacemark(coordinate: CLLocationCoordinate2D(latitude: place.coordinate.latitude, longitude: place.coordinate.longitude))
        placemark.name = place.name
        self.init(placemark: placemark)
        name = place.name
        pointOfInterestCategory = place.category.map(MKPointOfInterestCategory.init)
        phoneNumber = place.phone
        url = place.website.flatMap(URL.init(string:))
    }
}
#endif
