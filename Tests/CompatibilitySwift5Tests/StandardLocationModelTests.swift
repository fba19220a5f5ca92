// The standard location model (StandardLocationModel.swift), in the Swift 5
// language mode, on a bundled walk.
import CoreLocation
import Foundation
import StrollSimulation
import Testing
import TestSupport

@Suite("The standard location model, Swift 5 mode")
struct StandardLocationModelSwift5Tests {
    @Test("a nonisolated ObservableObject model gets the walk's fixes and the answer to its authorization request")
    @MainActor
    func modelOnAWalk() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path("traces/pier-head-to-guild.gpx"), authorization: .notDetermined,
                                                      answer: .authorizedWhenInUse)
        let model = LocationManager()
        await SimulatedDevice.current?.run()
        let last = try #require(model.location)
        #expect(model.authorizationStatus == .authorizedWhenInUse)
        #expect(last.horizontalAccuracy >= 0)
    }
}
