import CoreLocation
import Foundation
import StrollSimulation
import Streets
import Testing
import TestSupport

@Suite("Geocoding app code in Swift 5 mode", .serialized)
struct GeocodingAppCodeTests {
    @Test("a completion-handler helper and a plain class geocode from the device's addresses, and fail with CLError.network without them")
    @MainActor
    func appCode() async throws {
        // Each request is made on the main actor right after the device is
        // installed: it reads the device then (other suites install theirs).
        let device = try SimulatedDevice(trace: path("traces/pier-head-to-guild.gpx"))
        device.addresses = try AddressIndex.load(osm: fixture("osm/monaco-latest.osm.pbf"))
        defer { SimulatedDevice.current = nil }
        let answered = AsyncStream<Void>.makeStream()
        var line: String?
        SimulatedDevice.current = device
        AddressLookup.describe(CLLocation(latitude: 43.7384, longitude: 7.4246)) {
            line = $0
            answered.continuation.yield()
        }
        var answers = answered.stream.makeAsyncIterator()
        _ = await answers.next()
        #expect(line == "27 Boulevard de Suisse, 98000, Monte-Carlo, Monaco")

        let form = CheckInForm()
        SimulatedDevice.current = device
        form.lookUp("27 Boulevard de Suisse, Monte-Carlo") { answered.continuation.yield() }
        _ = await answers.next()
        #expect(form.failure == nil)
        #expect(abs((form.coordinate?.latitude ?? 0) - 43.73872) < 1e-5)

        device.addresses = nil
        SimulatedDevice.current = device
        form.lookUp("27 Boulevard de Suisse") { answered.continuation.yield() }
        _ = await answers.next()
        #expect((form.failure as? CLError)?.code == .network)
    }
}
