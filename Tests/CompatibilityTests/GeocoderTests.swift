import CoreLocation
import Foundation
import Geodesy
import StrollSimulation
import Streets
import Testing
import TestSupport

/// The Monaco extract's addresses, read once.
let monacoAddresses: AddressIndex? = try? AddressIndex.load(osm: fixture("osm/monaco-latest.osm.pbf"))

/// A completion handler's answer, awaited.
@MainActor
func completion(_ request: (@escaping CLGeocodeCompletionHandler) -> Void) async -> (placemarks: [CLPlacemark]?, error: CLError?) {
    await withCheckedContinuation { continuation in
        request { placemarks, error in continuation.resume(returning: (placemarks, error as? CLError)) }
    }
}

@Suite("CLGeocoder: geocoding offline from OpenStreetMap addresses", .serialized)
@MainActor
struct GeocoderTests {
    /// Near the Croix-Rouge monégasque, 27 Boulevard de Suisse (way 94400143).
    let boulevardDeSuisse = CLLocation(latitude: 43.7384, longitude: 7.4246)

    @Test("reverse geocoding, async: the nearest address with its parts")
    func reverseAsync() async throws {
        let geocoder = CLGeocoder(addresses: try #require(monacoAddresses))
        let placemarks = try await geocoder.reverseGeocodeLocation(boulevardDeSuisse)
        let p = try #require(placemarks.first)
        #expect(placemarks.count == 1)
        #expect(p.name == "Croix-Rouge monégasque")
        #expect(p.thoroughfare == "Boulevard de Suisse" && p.subThoroughfare == "27")
        #expect(p.locality == "Monte-Carlo" && p.postalCode == "98000")
        #expect(p.isoCountryCode == "MC" && p.country == "Monaco")
        // Monaco has one zone in the time zone database.
        #expect(p.timeZone?.identifier == "Europe/Monaco")
        let location = try #require(p.location)
        let nearest = try #require(monacoAddresses?.nearest(to: try Coordinate(latitude: 43.7384, longitude: 7.4246)))
        #expect(location.distance(from: boulevardDeSuisse) == nearest.distance)
        #expect(!geocoder.isGeocoding)
    }

    @Test("reverse geocoding, completion handler: the same answer; nothing near gives geocodeFoundNoResult")
    func reverseCompletion() async throws {
        let geocoder = CLGeocoder(addresses: try #require(monacoAddresses))
        let found = await completion { geocoder.reverseGeocodeLocation(boulevardDeSuisse, completionHandler: $0) }
        #expect(found.error == nil && found.placemarks?.first?.name == "Croix-Rouge monégasque")
        let sea = await completion { geocoder.reverseGeocodeLocation(CLLocation(latitude: 43.70, longitude: 7.45), completionHandler: $0) }
        #expect(sea.placemarks == nil && sea.error?.code == .geocodeFoundNoResult)
    }

    @Test("forward geocoding, both forms: the address string, case and accents folded")
    func forward() async throws {
        let geocoder = CLGeocoder(addresses: try #require(monacoAddresses))
        let placemarks = try await geocoder.geocodeAddressString("27 boulevard de suisse, 98000 monte carlo")
        #expect(placemarks.map(\.name) == ["Croix-Rouge monégasque"])
        let viaHandler = await completion { geocoder.geocodeAddressString("27 BOULEVARD DE SUISSE", completionHandler: $0) }
        #expect(viaHandler.placemarks?.map(\.name) == ["Croix-Rouge monégasque"])
        await #expect(throws: CLError(.geocodeFoundNoResult)) { try await geocoder.geocodeAddressString("27 Boulevard de Suisse, Paris") }
        await #expect(throws: CLError(.geocodeFoundNoResult)) { try await geocoder.geocodeAddressString("") }
    }

    @Test("no address source: CLError.network, as iOS offline; the device's addresses answer once it has them")
    func offlineAndTheDevice() async throws {
        // Each request is made right after the device is installed: it takes
        // the addresses of that moment (other suites install their devices).
        let index = try #require(monacoAddresses)
        let geocoder = CLGeocoder()
        let answered = AsyncStream<(placemarks: [CLPlacemark]?, error: CLError?)>.makeStream()
        var answers = answered.stream.makeAsyncIterator()
        let handler: CLGeocodeCompletionHandler = { answered.continuation.yield(($0, $1 as? CLError)) }

        SimulatedDevice.current = nil
        geocoder.reverseGeocodeLocation(boulevardDeSuisse, completionHandler: handler)
        let offline = await answers.next()
        #expect(offline?.placemarks == nil && offline?.error?.code == .network)
        SimulatedDevice.current = nil
        geocoder.geocodeAddressString("27 Boulevard de Suisse", completionHandler: handler)
        #expect(await answers.next()?.error?.code == .network)

        let device = try SimulatedDevice(trace: path("traces/lime-street-to-campus.gpx"))
        defer { SimulatedDevice.current = nil }
        SimulatedDevice.current = device
        geocoder.reverseGeocodeLocation(boulevardDeSuisse, completionHandler: handler)
        #expect(await answers.next()?.error?.code == .network)
        device.addresses = index
        SimulatedDevice.current = device
        #expect(CLDevice.addresses?.addresses.count == index.addresses.count)
        geocoder.reverseGeocodeLocation(boulevardDeSuisse, completionHandler: handler)
        let online = await answers.next()
        #expect(online?.error == nil && online?.placemarks?.first?.subThoroughfare == "27")
        SimulatedDevice.current = nil
        #expect(CLDevice.addresses == nil)
    }

    @Test("cancelGeocode: the pending request gets geocodeCanceled; one request at a time")
    func cancelAndOneAtATime() async throws {
        let geocoder = CLGeocoder(addresses: try #require(monacoAddresses))
        var answers: [String] = []
        let done = AsyncStream<Void>.makeStream()
        geocoder.reverseGeocodeLocation(boulevardDeSuisse) { placemarks, error in
            answers.append("first: \(placemarks?.first?.subThoroughfare ?? "") \((error as? CLError)?.code.rawValue ?? -1)")
            done.continuation.yield()
        }
        #expect(geocoder.isGeocoding)
        geocoder.geocodeAddressString("27 Boulevard de Suisse") { _, error in
            answers.append("second: \((error as? CLError)?.code.rawValue ?? -1)")
            done.continuation.yield()
        }
        #expect(geocoder.isGeocoding)
        geocoder.cancelGeocode()
        #expect(!geocoder.isGeocoding)
        var iterator = done.stream.makeAsyncIterator()
        _ = await iterator.next()
        _ = await iterator.next()
        #expect(answers.sorted() == ["first:  10", "second: 10"])
        // Cancelling with nothing pending does nothing; the geocoder answers again.
        geocoder.cancelGeocode()
        #expect(try await geocoder.reverseGeocodeLocation(boulevardDeSuisse).count == 1)
    }

    @Test("a region is a hint: the addresses inside a circle come first; a preferred locale changes nothing")
    func regionAndLocale() async throws {
        let geocoder = CLGeocoder(addresses: try #require(monacoAddresses))
        let plain = try await geocoder.geocodeAddressString("4 avenue de la madone").map(\.name)
        #expect(plain == ["Metropole", "Yoshi"])
        // 20 m around Yoshi (43.7405291, 7.4279678), 43 m from the Metropole.
        let near = CLCircularRegion(center: CLLocationCoordinate2D(latitude: 43.7405291, longitude: 7.4279678), radius: 20, identifier: "yoshi")
        #expect(try await geocoder.geocodeAddressString("4 avenue de la madone", in: near).map(\.name) == ["Yoshi", "Metropole"])
        #expect(try await geocoder.geocodeAddressString("4 avenue de la madone", in: near, preferredLocale: Locale(identifier: "de_DE")).map(\.name)
            == ["Yoshi", "Metropole"])
        #expect(try await geocoder.geocodeAddressString("4 avenue de la madone", in: nil).map(\.name) == plain)
        let viaHandler = await completion { geocoder.geocodeAddressString("4 avenue de la madone", in: near, preferredLocale: nil, completionHandler: $0) }
        #expect(viaHandler.placemarks?.map(\.name) == ["Yoshi", "Metropole"])
        let reverse = try await geocoder.reverseGeocodeLocation(boulevardDeSuisse, preferredLocale: Locale(identifier: "ja_JP"))
        #expect(reverse.map(\.name) == ["Croix-Rouge monégasque"])
        let reverseHandler = await completion { geocoder.reverseGeocodeLocation(boulevardDeSuisse, preferredLocale: nil, completionHandler: $0) }
        #expect(reverseHandler.placemarks?.map(\.name) == ["Croix-Rouge monégasque"])
    }

    @Test("a placemark copies")
    func copy() async throws {
        let geocoder = CLGeocoder(addresses: try #require(monacoAddresses))
        let p = try #require(try await geocoder.reverseGeocodeLocation(boulevardDeSuisse).first)
        let q = CLPlacemark(placemark: p)
        #expect(q.name == p.name && q.thoroughfare == p.thoroughfare && q.postalCode == p.postalCode && q.subLocality == p.subLocality
            && q.administrativeArea == p.administrativeArea && q.location?.coordinate.latitude == p.location?.coordinate.latitude)
    }
}
