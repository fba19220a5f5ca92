import Foundation
import Geodesy
import MapKit
import Streets
import Testing
import TestSupport

/// `MKDirections` answered offline from the Monaco extract's streets.
@Suite("MapKit on Linux: MKDirections over an OpenStreetMap extract", .serialized)
@MainActor
struct MKDirectionsTests {
    static let extract = fixture("osm/monaco-latest.osm.pbf")
    let casino = CLLocationCoordinate2D(latitude: 43.7400, longitude: 7.4280)
    let harbour = CLLocationCoordinate2D(latitude: 43.7350, longitude: 7.4200)

    func request(_ from: CLLocationCoordinate2D, _ to: CLLocationCoordinate2D, _ type: MKDirectionsTransportType = .walking) -> MKDirections.Request {
        let request = MKDirections.Request()
        request.source = MKMapItem(placemark: MKPlacemark(coordinate: from))
        request.destination = MKMapItem(placemark: MKPlacemark(coordinate: to))
        request.transportType = type
        return request
    }

    /// The `MKError` code that `body` throws; nil when it throws none, `.unknown` for another error.
    static func code(_ body: () async throws -> Void) async -> MKError.Code? {
        do {
            try await body()
            return nil
        } catch let error as MKError {
            return error.code
        } catch {
            return .unknown
        }
    }

    func code(_ body: () async throws -> Void) async -> MKError.Code? { await Self.code(body) }

    @Test("without streets, directions fail as MapKit's do offline")
    func offline() async {
        MKDirections.removeStreets()
        #expect(await code { _ = try await MKDirections(request: request(casino, harbour)).calculate() } == .serverFailure)
    }

    @Test("a walking route: the shortest path of the street network, its time at 1.4 m/s, steps that add up")
    func walking() async throws {
        try MKDirections.useStreets(from: Self.extract)
        let response = try await MKDirections(request: request(casino, harbour)).calculate()
        let route = try #require(response.routes.first)
        let network = try StreetNetwork.load(Self.extract)
        let expected = try network.route(from: try Geodesy.Coordinate(latitude: 43.7400, longitude: 7.4280), to: try Geodesy.Coordinate(latitude: 43.7350, longitude: 7.4200))
        #expect(route.distance == expected.distance)
        #expect(abs(route.expectedTravelTime - expected.distance / 1.4) < 1e-9)
        #expect(route.polyline.pointCount == expected.coordinates.count)
        #expect(route.transportType == .walking)
        #expect(route.steps.first?.instructions == "")
        #expect(route.steps.last?.instructions == "Arrive at the destination")
        #expect(route.steps.count == expected.stretches.count + 2)
        #expect(abs(route.steps.map(\.distance).reduce(0, +) - route.distance) < 1e-6)
        #expect(route.steps.dropFirst().first?.instructions.hasPrefix("Head ") == true)
        var first = CLLocationCoordinate2D()
        route.polyline.getCoordinates(&first, range: NSRange(location: 0, length: 1))
        #expect(first.latitude == expected.from.coordinate.latitude)
        let eta = try await MKDirections(request: request(casino, harbour)).calculateETA()
        #expect(eta.distance == route.distance)
        #expect(abs(eta.expectedArrivalDate.timeIntervalSince(eta.expectedDepartureDate) - route.expectedTravelTime) < 1e-3)
    }

    @Test("the completion handler gets the same route on the main actor")
    func completionHandler() async throws {
        try MKDirections.useStreets(from: Self.extract)
        let distance = try await MKDirections(request: request(casino, harbour)).calculate().routes.first?.distance
        let handed: Double? = await withCheckedContinuation { done in
            MKDirections(request: request(casino, harbour)).calculate { response, error in
                #expect(error == nil)
                done.resume(returning: response?.routes.first?.distance)
            }
        }
        #expect(handed == distance)
    }

    @Test("other transport types, unconnected points and points far away: directionsNotFound")
    func notFound() async throws {
        try MKDirections.useStreets(from: Self.extract)
        #expect(await code { _ = try await MKDirections(request: request(casino, harbour, .automobile)).calculate() } == .directionsNotFound)
        let island = CLLocationCoordinate2D(latitude: 43.7311, longitude: 7.4197)
        #expect(await code { _ = try await MKDirections(request: request(CLLocationCoordinate2D(latitude: 43.7384, longitude: 7.4246), island)).calculate() } == .directionsNotFound)
        #expect(await code { _ = try await MKDirections(request: request(casino, CLLocationCoordinate2D(latitude: 48.85, longitude: 2.35))).calculate() } == .directionsNotFound)
        #expect(await code { _ = try await MKDirections(request: MKDirections.Request()).calculate() } == .placemarkNotFound)
    }
}
