import Foundation
import Geodesy
import MapKit
import Streets
import Testing
import TestSupport

extension MKDirectionsTests {
    /// `MKLocalSearch` answered offline from the Monaco extract's points of
    /// interest, as app code asks it. A suite inside `MKDirectionsTests`,
    /// serialized with it: both set and remove the one extract MapKit answers from.
    @Suite("MapKit on Linux: MKLocalSearch over an OpenStreetMap extract")
    @MainActor
    struct LocalSearch {
        /// Place du Casino, where the app's user stands.
        let casino = CLLocationCoordinate2D(latitude: 43.7394, longitude: 7.4270)

        func distance(_ a: CLLocationCoordinate2D, _ b: CLLocationCoordinate2D) -> Double {
            Geodesic.wgs84.distance(Coordinate(computedLatitude: a.latitude, longitude: a.longitude),
                                    Coordinate(computedLatitude: b.latitude, longitude: b.longitude))
        }

        func code(_ body: () async throws -> Void) async -> MKError.Code? { await MKDirectionsTests.code(body) }

        @Test("without an extract, a search fails as MapKit's does offline, in both forms")
        func offline() async {
            MKDirections.removeStreets()
            let request = MKLocalSearch.Request(naturalLanguageQuery: "cafe")
            #expect(await code { _ = try await MKLocalSearch(request: request).start() } == .serverFailure)
            let handed: MKError.Code? = await withCheckedContinuation { done in
                MKLocalSearch(request: request).start { response, error in
                    #expect(response == nil)
                    done.resume(returning: (error as? MKError)?.code)
                }
            }
            #expect(handed == .serverFailure)
        }

        @Test("\"cafe\" near the casino: the cafes and the places named café in the region, nearest first")
        func cafesNearby() async throws {
            try MKDirections.useStreets(from: MKDirectionsTests.extract)
            let region = MKCoordinateRegion(center: casino, latitudinalMeters: 2000, longitudinalMeters: 2000)
            let request = MKLocalSearch.Request()
            request.naturalLanguageQuery = "cafe"
            request.region = region
            let response = try await MKLocalSearch(request: request).start()
            let items = response.mapItems
            #expect(items.first?.name == "Café de Paris")
            #expect(items.first?.pointOfInterestCategory == .cafe)
            #expect(items.first?.url?.host == "fr.montecarlosbm.com")
            let distances = items.map { distance(casino, $0.placemark.coordinate) }
            #expect(distances == distances.sorted())
            for item in items {
                let c = item.placemark.coordinate
                #expect(abs(c.latitude - region.center.latitude) <= region.span.latitudeDelta / 2)
                #expect(abs(c.longitude - region.center.longitude) <= region.span.longitudeDelta / 2)
                let named = SearchText.words(item.name ?? "").contains { $0.hasPrefix("cafe") }
                #expect(item.pointOfInterestCategory == .cafe || named, "\(item.name ?? "?")")
            }
            #expect(Set(items.compactMap(\.name)).isSuperset(of: ["Starbucks", "Le Palace Café", "Richmond Bar", "Sass"]))
            // The same places as the search of Streets on the same extract.
            let places = try PointsOfInterest.load(MKDirectionsTests.extract)
            let center = try Coordinate(latitude: casino.latitude, longitude: casino.longitude)
            let expected = places.search("cafe", in: .region(center: center, latitudeDelta: region.span.latitudeDelta, longitudeDelta: region.span.longitudeDelta))
            #expect(items.map(\.name) == expected.map(\.place.name))
            #expect(response.boundingRegion.span.latitudeDelta > 0)
            for item in items {
                #expect(abs(item.placemark.coordinate.latitude - response.boundingRegion.center.latitude) <= response.boundingRegion.span.latitudeDelta / 2)
            }
        }

        @Test("\"coffee\" and a filter on .cafe find the cafes only")
        func coffeeFiltered() async throws {
            try MKDirections.useStreets(from: MKDirectionsTests.extract)
            let region = MKCoordinateRegion(center: casino, latitudinalMeters: 6000, longitudinalMeters: 6000)
            let request = MKLocalSearch.Request(naturalLanguageQuery: "coffee", region: region)
            request.pointOfInterestFilter = MKPointOfInterestFilter(including: [.cafe])
            let items = try await MKLocalSearch(request: request).start().mapItems
            #expect(items.count == 16)
            #expect(items.allSatisfy { $0.pointOfInterestCategory == .cafe })
            request.pointOfInterestFilter = MKPointOfInterestFilter(excluding: [.cafe])
            #expect(await code { _ = try await MKLocalSearch(request: request).start() } == .placemarkNotFound)
        }

        @Test("points of interest within 150 m of the casino, with the completion handler, filtered")
        func pointsOfInterestAround() async throws {
            try MKDirections.useStreets(from: MKDirectionsTests.extract)
            let request = MKLocalPointsOfInterestRequest(center: casino, radius: 150)
            #expect(request.radius == 150)
            let search = MKLocalSearch(request: request)
            let items: [(name: String?, coordinate: CLLocationCoordinate2D)] = await withCheckedContinuation { done in
                search.start { response, error in
                    #expect(error == nil)
                    done.resume(returning: (response?.mapItems ?? []).map { ($0.name, $0.placemark.coordinate) })
                }
                #expect(search.isSearching)
            }
            #expect(!search.isSearching)
            #expect(!items.isEmpty)
            #expect(items.allSatisfy { distance(casino, $0.coordinate) <= 150 })
            #expect(items.contains { $0.name == "Café de Paris" })
            request.pointOfInterestFilter = MKPointOfInterestFilter(including: [.cafe, .hotel])
            let filtered = try await MKLocalSearch(request: request).start().mapItems
            #expect(!filtered.isEmpty && filtered.count < items.count)
            #expect(filtered.allSatisfy { [.cafe, .hotel].contains($0.pointOfInterestCategory) })
            request.pointOfInterestFilter = .excludingAll
            #expect(await code { _ = try await MKLocalSearch(request: request).start() } == .placemarkNotFound)
        }

        @Test("a region request, cancel before the answer, and requests that cannot be asked")
        func regionCancelAndBadRequests() async throws {
            try MKDirections.useStreets(from: MKDirectionsTests.extract)
            let region = MKCoordinateRegion(center: casino, latitudinalMeters: 400, longitudinalMeters: 400)
            let request = MKLocalPointsOfInterestRequest(coordinateRegion: region)
            #expect(request.radius > 200 && request.radius < 300)
            let items = try await MKLocalSearch(request: request).start().mapItems
            #expect(items.allSatisfy { abs($0.placemark.coordinate.latitude - casino.latitude) <= region.span.latitudeDelta / 2 })

            let cancelled = MKLocalSearch(request: MKLocalSearch.Request(naturalLanguageQuery: "cafe"))
            cancelled.start { _, _ in Issue.record("a cancelled search answered") }
            cancelled.cancel()
            #expect(!cancelled.isSearching)
            let again: Int = await withCheckedContinuation { done in
                cancelled.start { response, _ in done.resume(returning: response?.mapItems.count ?? 0) }
            }
            #expect(again > 0)

            #expect(await code { _ = try await MKLocalSearch(request: MKLocalSearch.Request()).start() } == .placemarkNotFound)
            let addresses = MKLocalSearch.Request(naturalLanguageQuery: "cafe")
            addresses.resultTypes = .address
            #expect(await code { _ = try await MKLocalSearch(request: addresses).start() } == .placemarkNotFound)
            #expect(await code { _ = try await MKLocalSearch(request: MKLocalSearch.Request(naturalLanguageQuery: "zzyzx")).start() } == .placemarkNotFound)
        }

        @Test("app code: walking directions from the user's position to the nearest coffee house")
        func directionsToNearestCoffee() async throws {
            try MKDirections.useStreets(from: MKDirectionsTests.extract)
            let user = CLLocationCoordinate2D(latitude: 43.7350, longitude: 7.4200)
            let nearby = MKLocalSearch.Request(naturalLanguageQuery: "coffee", region: MKCoordinateRegion(center: user, latitudinalMeters: 3000, longitudinalMeters: 3000))
            let shop = try #require(try await MKLocalSearch(request: nearby).start().mapItems.first)
            #expect(shop.name == "La Gelateria")
            let request = MKDirections.Request()
            request.source = MKMapItem(placemark: MKPlacemark(coordinate: user))
            request.destination = shop
            request.transportType = .walking
            let route = try #require(try await MKDirections(request: request).calculate().routes.first)
            let network = try StreetNetwork.load(MKDirectionsTests.extract)
            let expected = try network.route(from: try Coordinate(latitude: user.latitude, longitude: user.longitude),
                                             to: try Coordinate(latitude: shop.placemark.coordinate.latitude, longitude: shop.placemark.coordinate.longitude))
            #expect(route.distance == expected.distance)
            #expect(route.distance > distance(user, shop.placemark.coordinate))
            #expect(route.steps.dropFirst().first?.instructions.hasPrefix("Head ") == true)
            #expect(route.steps.last?.instructions == "Arrive at the destination")
        }

        @Test("the filter's answers, as MapKit's")
        func filter() {
            #expect(MKPointOfInterestFilter(including: [.cafe]).includes(.cafe))
            #expect(MKPointOfInterestFilter(including: [.cafe]).excludes(.bakery))
            #expect(MKPointOfInterestFilter(excluding: [.cafe]).excludes(.cafe))
            #expect(MKPointOfInterestFilter.includingAll.includes(MKPointOfInterestCategory(rawValue: "MKPOICategoryCastle")))
            #expect(MKPointOfInterestFilter.excludingAll.excludes(.park))
            #expect(MKPointOfInterestCategory.cafe.rawValue == "MKPOICategoryCafe")
        }
    }
}
