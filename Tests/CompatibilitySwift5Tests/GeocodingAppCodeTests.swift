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
        let device = try SimulatedDevice(trace: path("traces/pier-head-to-guild.gpx"))
        device.addresses = try AddressIndex.load(osm: fixture("osm/monaco-latest.osm.pbf"))
        SimulatedDevice.current = device
        defer { SimulatedDevice.current = nil }
        let line = await withCheckedContinuation { continuation in
            AddressLookup.describe(CLLocation(latitude: 43.7384, longitude: 7.4246)) { continuation.resume(returning: $0) }
        }
        #expect(line == "27 Boulevard de Suisse, 98000, Monte-Carlo, Monaco")

        let form = CheckInForm()
        await withCheckedContinuation { continuation in form.lookUp("27 Boulevard de Suisse, Monte-Carlo") { continuation.resume() } }
        #expect(form.failure == nil)
        #expect(abs((form.coordinate?.latitude ?? 0) - 43.73872) < 1e-5)

        device.addresses = nil
        await withCheckedContinuation { continuation in form.lookUp("27 Boulevard de Suisse") { continuation.resume() } }
        #expect((form.failure as? CLError)?.code == .network)
    }
}
