import CoreLocation
import Foundation
import StrollSimulation
import Testing
import TestSupport

// Inside CoreLocationTests, whose `.serialized` it inherits: both install the one SimulatedDevice.current.
extension CoreLocationTests {
    @Suite("Sessions: CLServiceSession asks for its authorization, CLBackgroundActivitySession changes nothing")
    @MainActor
    struct SessionTests {
        let walk = "traces/lime-street-to-campus.gpx"

        /// The first diagnostic of a session made on a device that has not asked yet and answers `answer`, and the status after.
        func firstDiagnostic(_ requirement: CLServiceSession.AuthorizationRequirement, answer: CLAuthorizationStatus)
            async throws -> (CLServiceSession.Diagnostic?, CLAuthorizationStatus) {
            SimulatedDevice.current = try SimulatedDevice(trace: path(walk), authorization: .notDetermined, answer: answer)
            defer { SimulatedDevice.current = nil }
            let session = CLServiceSession.session(authorization: requirement)
            var diagnostics = session.diagnostics.makeAsyncIterator()
            let first = await diagnostics.next()
            session.invalidate()
            #expect(await diagnostics.next() == nil, "the diagnostics end with the session")
            return (first, CLLocationManager.authorizationStatus())
        }

        @Test("a when-in-use session asks as requestWhenInUseAuthorization() does: granted, nothing in the way; denied, authorizationDenied")
        func whenInUse() async throws {
            let (granted, status) = try await firstDiagnostic(.whenInUse, answer: .authorizedWhenInUse)
            #expect(status == .authorizedWhenInUse)
            let g = try #require(granted)
            #expect(!g.authorizationDenied && !g.authorizationRequestInProgress && !g.alwaysAuthorizationDenied)
            let (denied, after) = try await firstDiagnostic(.whenInUse, answer: .denied)
            #expect(after == .denied)
            #expect(denied?.authorizationDenied == true)
            #expect(denied?.authorizationRestricted == false)
        }

        @Test("an always session answered with when-in-use says alwaysAuthorizationDenied; a session needing none asks nothing")
        func alwaysAndNone() async throws {
            let (always, status) = try await firstDiagnostic(.always, answer: .authorizedAlways)
            #expect(status == .authorizedAlways)
            #expect(always?.alwaysAuthorizationDenied == false)
            SimulatedDevice.current = try SimulatedDevice(trace: path(walk), authorization: .authorizedWhenInUse)
            let session = CLServiceSession.session(authorization: .always, fullAccuracyPurposeKey: "Walks")
            var diagnostics = session.diagnostics.makeAsyncIterator()
            #expect(await diagnostics.next()?.alwaysAuthorizationDenied == true)
            #expect(session.fullAccuracyPurposeKey == "Walks")
            SimulatedDevice.current = nil
            let (none, untouched) = try await firstDiagnostic(.none, answer: .authorizedWhenInUse)
            #expect(untouched == .notDetermined)
            #expect(none?.authorizationRequestInProgress == false)
        }

        @Test("updates go on while a background activity session is held, as without one; iOS 18's handler is told the authorization at the start")
        func background() async throws {
            func locations(session: Bool) async throws -> Int {
                let device = try SimulatedDevice(trace: path(walk))
                SimulatedDevice.current = device
                defer { SimulatedDevice.current = nil }
                let held = session ? CLBackgroundActivitySession() : nil
                let recorder = VisitRecorder()
                recorder.manager.startUpdatingLocation()
                await device.run()
                held?.invalidate()
                return recorder.locations
            }
            let with = try await locations(session: true), without = try await locations(session: false)
            #expect(with > 10)
            #expect(with == without)

            SimulatedDevice.current = try SimulatedDevice(trace: path(walk), authorization: .denied)
            defer { SimulatedDevice.current = nil }
            let (told, tell) = AsyncStream.makeStream(of: CLBackgroundActivitySession.Diagnostic.self)
            let withHandler = CLBackgroundActivitySession(queue: .main) { tell.yield($0); tell.finish() }
            var it = told.makeAsyncIterator()
            let diagnostic = try #require(await it.next())
            #expect(diagnostic.authorizationDenied)
            #expect(!diagnostic.insufficientlyInUse && !diagnostic.serviceSessionRequired && !diagnostic.authorizationRestricted)
            withHandler.invalidate()
        }
    }
}
