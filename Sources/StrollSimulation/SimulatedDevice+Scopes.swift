#if !canImport(Darwin)
import CoreLocation
import Foundation
import LocationSimulation
import Testing
import Traces

/// Where `SimulatedDevice.current = …` is kept: for the running Swift
/// Testing test (its task, then the test), so that tests running in
/// parallel, which Swift Testing does by default, each have their own
/// device; outside tests, for the process.
enum TestScopes {
    private static let installed: Bool = {
        CLDevice.setScopeResolver {
            guard let test = Test.current else { return [] }
            let name = "test \(test.id)"
            let task = withUnsafeCurrentTask { $0?.hashValue }
            return (task.map { ["\(name), task \($0)"] } ?? []) + [name]
        }
        return true
    }()

    /// Installs the resolver once.
    static func install() { _ = installed }
}

/// Runs `operation` with `device` as the device of every `CLLocationManager`,
/// `CLMonitor`, `liveUpdates()` and `CLGeocoder` made in it (in this task
/// and the tasks it starts), whatever other tests or tasks install: the
/// scoped form of `SimulatedDevice.current = device`.
@MainActor
public func withSimulatedDevice<R>(_ device: SimulatedDevice, operation: @MainActor () async throws -> R) async rethrows -> R {
    try await CLDevice.withDevice(device, addresses: device.addresses) { try await operation() }
}

/// Runs `operation` with a device replaying the trace at `path` (see
/// ``withSimulatedDevice(_:operation:)``); the device is handed to it.
/// A trace that cannot be read throws its error, naming the file and line.
@MainActor
public func withSimulatedDevice<R>(replaying path: String, replay: ReplayOptions = ReplayOptions(), sensor: SensorOptions = SensorOptions(),
                                   authorization: CLAuthorizationStatus = .authorizedWhenInUse,
                                   answer: CLAuthorizationStatus = .authorizedWhenInUse,
                                   operation: @MainActor (SimulatedDevice) async throws -> R) async throws -> R {
    let device = try SimulatedDevice(trace: path, replay: replay, sensor: sensor, authorization: authorization, answer: answer)
    return try await withSimulatedDevice(device) { try await operation(device) }
}

/// A test trait giving the test a device of its own, replaying a trace:
/// `@Test(.simulatedDevice(replaying: "traces/campus-loop.gpx"))`. In the
/// test, `SimulatedDevice.current` is that device, and every manager made
/// there uses it, whatever tests run beside it. A trace that cannot be read
/// is a test failure naming the file and line, and the test does not run.
public struct SimulatedDeviceTrait: TestTrait, TestScoping {
    /// The trace replayed, as a path from the package's root (where `swift test` runs).
    public let path: String
    /// How the walk is replayed (its rate, its start).
    public let replay: ReplayOptions
    /// The receiver's noise and environment.
    public let sensor: SensorOptions
    /// The authorization the app starts with.
    public let authorization: CLAuthorizationStatus
    /// What the user answers when the app asks.
    public let answer: CLAuthorizationStatus

    /// Runs the test inside ``withSimulatedDevice(_:operation:)`` with a new device.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let trace: Trace
        do {
            trace = try TraceReader.read(path)
        } catch {
            Issue.record("the simulated device's trace cannot be read: \(error.description)", sourceLocation: test.sourceLocation)
            return
        }
        try await runOnMain(trace: trace, function)
    }

    @MainActor
    private func runOnMain(trace: Trace, _ function: @Sendable () async throws -> Void) async throws {
        let device = SimulatedDevice(trace: trace, replay: replay, sensor: sensor, authorization: authorization, answer: answer)
        try await withSimulatedDevice(device) { try await function() }
    }
}

extension Trait where Self == SimulatedDeviceTrait {
    /// A device of the test's own replaying the trace at `path`
    /// (``SimulatedDeviceTrait``).
    public static func simulatedDevice(replaying path: String, replay: ReplayOptions = ReplayOptions(), sensor: SensorOptions = SensorOptions(),
                                       authorization: CLAuthorizationStatus = .authorizedWhenInUse,
                                       answer: CLAuthorizationStatus = .authorizedWhenInUse) -> Self {
        SimulatedDeviceTrait(path: path, replay: replay, sensor: sensor, authorization: authorization, answer: answer)
    }
}
#endif
