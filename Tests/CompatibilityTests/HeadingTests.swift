import CoreLocation
import Foundation
import Geodesy
import Geomagnetism
import LocationSimulation
import StrollSimulation
import Testing
import TestSupport
import Traces

/// An app's compass class: headings, failures, and the calibration question counted.
@MainActor
final class CompassTracker: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    var headings: [CLHeading] = []
    var errors: [CLError] = []
    var calibrationQuestions = 0

    init(headingFilter: CLLocationDegrees = kCLHeadingFilterNone) {
        super.init()
        manager.delegate = self
        manager.headingFilter = headingFilter
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {
        MainActor.assumeIsolated { headings.append(newHeading) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        guard let error = error as? CLError else { return }
        MainActor.assumeIsolated { errors.append(error) }
    }

    nonisolated func locationManagerShouldDisplayHeadingCalibration(_ manager: CLLocationManager) -> Bool {
        MainActor.assumeIsolated { calibrationQuestions += 1 }
        return true
    }
}

/// The shorter turn between two directions, degrees.
func turn(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
}

/// pygeomag's declination at the bundled walk's second recorded fix, 08:40:05
/// (Tests/GeomagnetismTests/Reference/wmm-pygeomag.tsv, its first row).
func pygeomagDeclinationAtWalkStart() throws -> Double {
    let text = try String(contentsOfFile: path("Tests/GeomagnetismTests/Reference/wmm-pygeomag.tsv"), encoding: .utf8)
    let row = try #require(text.split(separator: "\n").first { !$0.hasPrefix("#") }).split(separator: "\t")
    try #require(row.count == 11)
    #expect(row[0] == "53.4072071" && row[1] == "-2.9795042")
    return try #require(Double(row[5]))
}

// Inside CoreLocationTests, whose `.serialized` it inherits: both install the one SimulatedDevice.current.
extension CoreLocationTests {
    @Suite("Headings: CLHeading from the walk's course and the World Magnetic Model")
    @MainActor
    struct HeadingTests {
        let walk = "traces/lime-street-to-campus.gpx"

        /// The headings a manager gets on the walk with location updates on, and the tracker.
        func compass(filter: CLLocationDegrees, locationUpdates: Bool = true) async throws -> CompassTracker {
            SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
            defer { SimulatedDevice.current = nil }
            let tracker = CompassTracker(headingFilter: filter)
            if locationUpdates { tracker.manager.startUpdatingLocation() }
            tracker.manager.startUpdatingHeading()
            await SimulatedDevice.current?.run()
            return tracker
        }

        @Test("with no filter, a heading at every device fix whose course is known: trueHeading the course, magneticHeading the course less the model's declination, the fix's time")
        func everyFix() async throws {
            let tracker = try await compass(filter: kCLHeadingFilterNone)
            let fixes = try deviceFixes(try TraceReader.read(path(walk))).filter { $0.course >= 0 }
            #expect(tracker.headings.count == fixes.count)
            #expect(tracker.headings.count > 100)
            #expect(tracker.errors.isEmpty)
            #expect(tracker.calibrationQuestions == 1)
            for (heading, fix) in zip(tracker.headings, fixes) {
                let field = try WorldMagneticModel.field(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude,
                                                         height: fix.altitude, date: Date(timeIntervalSince1970: fix.timestamp))
                #expect(heading.trueHeading == fix.course)
                #expect(heading.timestamp.timeIntervalSince1970 == fix.timestamp)
                #expect(turn(heading.magneticHeading, fix.course - field.declination) < 1e-9)
                #expect((0..<360).contains(heading.magneticHeading))
                #expect(heading.headingAccuracy == field.declinationUncertainty)
                #expect(heading.headingAccuracy > 0.26 && heading.headingAccuracy < 1)
            }
            #expect(tracker.manager.heading === tracker.headings.last)
        }

        @Test("at Liverpool on 2024-05-01 true minus magnetic is pygeomag's declination (WMM-2020, about -0.3°) within 1e-9 degrees")
        func declinationAtLiverpool() async throws {
            let tracker = try await compass(filter: kCLHeadingFilterNone)
            let first = try #require(tracker.headings.first { $0.timestamp.timeIntervalSince1970 == 1_714_552_805 })
            var declination = first.trueHeading - first.magneticHeading
            if declination > 180 { declination -= 360 } else if declination < -180 { declination += 360 }
            let expected = try pygeomagDeclinationAtWalkStart()
            #expect(abs(declination - expected) < 1e-9)
            #expect(declination < 0 && declination > -1)
        }

        @Test("headingFilter: fewer deliveries as it grows, and each delivered magnetic heading turned by at least the filter from the one before")
        func filterHonoured() async throws {
            var counts: [Int] = []
            for filter in [kCLHeadingFilterNone, 1, 10, 45] {
                let tracker = try await compass(filter: filter)
                counts.append(tracker.headings.count)
                let magnetic = tracker.headings.map(\.magneticHeading)
                #expect(zip(magnetic, magnetic.dropFirst()).allSatisfy { turn($0, $1) >= filter }, "filter \(filter)")
            }
            #expect(counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > counts[3], "\(counts)")
            #expect(counts[3] >= 2)
        }

        @Test("without location updates trueHeading is -1 and magneticHeading is still delivered, as on iOS")
        func trueHeadingNeedsLocationUpdates() async throws {
            let tracker = try await compass(filter: 5, locationUpdates: false)
            #expect(!tracker.headings.isEmpty)
            #expect(tracker.headings.allSatisfy { $0.trueHeading == -1 && (0..<360).contains($0.magneticHeading) })
        }

        @Test("x, y, z: the model's field in microtesla for a phone flat and screen up, its top along the course")
        func fieldComponents() async throws {
            let tracker = try await compass(filter: 10)
            let fixes = try deviceFixes(try TraceReader.read(path(walk)))
            for heading in tracker.headings {
                let fix = try #require(fixes.first { $0.timestamp == heading.timestamp.timeIntervalSince1970 })
                let field = try WorldMagneticModel.field(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude,
                                                         height: fix.altitude, date: heading.timestamp)
                let horizontal = (heading.x * heading.x + heading.y * heading.y).squareRoot() * 1000
                #expect(abs(horizontal - field.horizontalIntensity) < 1e-6)
                #expect(abs(heading.z * 1000 + field.down) < 1e-9)
                #expect(turn(atan2(-heading.x, heading.y) * 180 / .pi, heading.magneticHeading) < 1e-9)
            }
        }

        @Test("a walk dated 2032, after the model's validity: one CLError.headingFailure, no heading, and the device's headingError names the date and the window")
        func dateOutsideModel() async throws {
            let start = Coordinate(computedLatitude: 53.40, longitude: -2.98)
            let fixes = (0..<30).map { i in
                Fix(coordinate: Geodesic.wgs84.direct(from: start, azimuth: 90, distance: 10 * Double(i)).coordinate,
                    time: 1_956_528_000 + 10 * Double(i), horizontalAccuracy: 5, line: i + 1)  // 2032-01-01
            }
            let device = SimulatedDevice(trace: Trace(format: .gpx, tracks: [Track(segments: [Segment(fixes: fixes)])]))
            SimulatedDevice.current = device
            defer { SimulatedDevice.current = nil }
            let tracker = CompassTracker()
            tracker.manager.startUpdatingLocation()
            tracker.manager.startUpdatingHeading()
            await device.run()
            #expect(tracker.headings.isEmpty)
            #expect(tracker.errors.map(\.code) == [.headingFailure])
            guard case .dateOutsideModel(let year, 2020, 2030) = try #require(device.headingError) else {
                Issue.record("not a date outside the model: \(String(describing: device.headingError))")
                return
            }
            #expect(year >= 2032 && year < 2032.001)
            #expect(device.headingError?.description.contains("2032.000 (2032-01-01)") == true)
            #expect(device.headingError?.description.contains("2020.000 (2020-01-01) to 2030.000 (2030-01-01)") == true)
        }

        @Test("headingAvailable() with a device; startUpdatingHeading() with none reports headingFailure; stop keeps the last heading; headingOrientation is kept")
        func availability() async throws {
            let tracker = CompassTracker()
            #expect(CLLocationManager.headingAvailable() == false)
            tracker.manager.startUpdatingHeading()
            #expect(tracker.errors.map(\.code) == [.headingFailure])
            tracker.manager.stopUpdatingHeading()

            let device = try SimulatedDevice(trace: path(walk))
            SimulatedDevice.current = device
            defer { SimulatedDevice.current = nil }
            #expect(CLLocationManager.headingAvailable())
            tracker.manager.headingOrientation = .landscapeLeft
            tracker.manager.startUpdatingHeading()
            #expect(tracker.manager.isUpdatingHeading)
            await device.advance(by: 60)
            let count = tracker.headings.count
            #expect(count > 0)
            tracker.manager.stopUpdatingHeading()
            await device.run()
            #expect(tracker.headings.count == count)
            #expect(tracker.manager.heading === tracker.headings.last)
            #expect(tracker.manager.headingOrientation == .landscapeLeft)
            #expect(CLDeviceOrientation.faceDown.rawValue == 6)
        }

        @Test("a heading prints as iOS prints one")
        func headingDescription() {
            let heading = CLHeading(magneticHeading: 90.5, trueHeading: 90.2, headingAccuracy: 0.4, timestamp: Date(timeIntervalSince1970: 1_714_552_800))
            #expect(heading.description == "magneticHeading 90.50 trueHeading 90.20 accuracy 0.40 x +0.000 y +0.000 z +0.000 @ 2024-05-01T08:40:00Z")
        }
    }
}
