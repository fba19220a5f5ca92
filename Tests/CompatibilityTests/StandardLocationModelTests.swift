// The standard location model (StandardLocationModel.swift), in the Swift 6
// language mode: on a bundled walk from the main actor, and made and driven
// from a thread that is not the main queue's.
import CoreLocation
import Dispatch
import Foundation
import StrollSimulation
import Testing
import TestSupport

/// Marks the main queue, the main actor's executor (on Linux, once Swift
/// Testing runs, not the main thread).
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

private func onMainQueue() -> Bool { Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true }

/// A delegate that records where and in what order its callbacks arrive.
final class CallbackRecorder: NSObject, CLLocationManagerDelegate {
    var timestamps: [Date] = []
    var offMainQueue = 0
    var authorizations = 0

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        if !onMainQueue() { offMainQueue += 1 }
        timestamps += locations.map(\.timestamp)
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        if !onMainQueue() { offMainQueue += 1 }
        authorizations += 1
    }
}

@Suite("The standard location model, Swift 6 mode")
struct StandardLocationModelTests {
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

    @Test("made and driven off the main queue: each call has reached the device when it returns, and callbacks arrive on the main queue in time order")
    func offTheMainQueue() async throws {
        let device = try await SimulatedDevice(trace: path("traces/pier-head-to-guild.gpx"))
        await MainActor.run { SimulatedDevice.current = device }
        #expect(!onMainQueue())
        let model = LocationManager()
        let manager = CLLocationManager()
        let recorder = CallbackRecorder()
        manager.delegate = recorder
        manager.distanceFilter = 50
        manager.startUpdatingLocation()
        #expect(!onMainQueue())
        #expect(manager.isUpdatingLocation)
        #expect(manager.distanceFilter == 50)
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        #expect(CLLocationManager.locationServicesEnabled())
        await device.run()
        #expect(model.location != nil)
        #expect(model.authorizationStatus == .authorizedWhenInUse)
        #expect(!recorder.timestamps.isEmpty)
        #expect(recorder.timestamps == recorder.timestamps.sorted())
        #expect(recorder.authorizations == 1)
        #expect(recorder.offMainQueue == 0)
        #expect(manager.location?.timestamp == recorder.timestamps.last)
        manager.stopUpdatingLocation()
        #expect(!manager.isUpdatingLocation)
    }
}
