import CoreLocation
import Foundation
import StrollSimulation
import Testing
import TestSupport

/// A region-monitoring app's delegate: the first state of each region, then
/// each entry and exit, as (identifier, satisfied, seconds since 1970) at the
/// device's time of the callback.
@MainActor
final class CrossingTracker: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    var crossings: [Crossing] = []
    private var determined: Set<String> = []

    override init() {
        super.init()
        manager.delegate = self
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {
        let id = region.identifier
        MainActor.assumeIsolated {
            guard !determined.contains(id) else { return }
            determined.insert(id)
            crossings.append(Crossing(identifier: id, satisfied: state == .inside, time: SimulatedDevice.current?.now ?? -1))
        }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        let id = region.identifier
        MainActor.assumeIsolated { crossings.append(Crossing(identifier: id, satisfied: true, time: SimulatedDevice.current?.now ?? -1)) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        let id = region.identifier
        MainActor.assumeIsolated { crossings.append(Crossing(identifier: id, satisfied: false, time: SimulatedDevice.current?.now ?? -1)) }
    }
}

/// A region's state from one moment on.
struct Crossing: Equatable, Comparable, CustomStringConvertible {
    let identifier: String
    let satisfied: Bool
    let time: Double

    init(identifier: String, satisfied: Bool, time: Double) {
        self.identifier = identifier
        self.satisfied = satisfied
        self.time = time
    }

    init?(_ event: CLMonitor.Event) {
        guard event.state == .satisfied || event.state == .unsatisfied else { return nil }
        self.init(identifier: event.identifier, satisfied: event.state == .satisfied, time: event.date.timeIntervalSince1970)
    }

    static func < (a: Crossing, b: Crossing) -> Bool { (a.time, a.identifier) < (b.time, b.identifier) }

    var description: String { "\(identifier) \(satisfied ? "satisfied" : "unsatisfied") at \(time)" }
}

/// A condition Stroll cannot evaluate: an app's own.
struct ShopOpenCondition: CLMonitor.Condition {}

/// tests/IntegrationTests/replay/regions.geojson's circles.
let pierHead = CLMonitor.CircularGeographicCondition(center: CLLocationCoordinate2D(latitude: 53.4046, longitude: -2.9958), radius: 150)
let campus = CLMonitor.CircularGeographicCondition(center: CLLocationCoordinate2D(latitude: 53.4058, longitude: -2.9665), radius: 300)

// Inside CoreLocationTests, whose `.serialized` it inherits: both install the one SimulatedDevice.current.
extension CoreLocationTests {
    @Suite("CLMonitor: conditions evaluated as the walk plays, by region monitoring's rules")
    @MainActor
    struct MonitorTests {
        let pierHeadWalk = "traces/pier-head-to-guild.gpx"
        let limeStreetWalk = "traces/lime-street-to-campus.gpx"

        /// Every event of `events` until the walk's end finishes it.
        func collect(_ events: CLMonitor.Events) async -> [CLMonitor.Event] {
            var all: [CLMonitor.Event] = []
            for await event in events { all.append(event) }
            return all
        }

        @Test("circular conditions change state at the same fixes as startMonitoring(for:)'s states, entries and exits on the same walk")
        func sameCrossingsAsRegionMonitoring() async throws {
            SimulatedDevice.current = try SimulatedDevice(trace: path(pierHeadWalk))
            defer { SimulatedDevice.current = nil }
            let tracker = CrossingTracker()
            for (id, condition) in [("pier-head", pierHead), ("campus", campus)] {
                tracker.manager.startMonitoring(for: CLCircularRegion(center: condition.center, radius: condition.radius, identifier: id))
            }
            let monitor = await CLMonitor.requestMonitor(named: "crossings")
            await monitor.add(pierHead, identifier: "pier-head")
            await monitor.add(campus, identifier: "campus")
            let events = await monitor.events
            await SimulatedDevice.current?.run()
            let received = await collect(events)
            let crossings = received.compactMap(Crossing.init).sorted()
            #expect(crossings == tracker.crossings.sorted())
            #expect(received.map(\.identifier).filter { $0 == "pier-head" }.count >= 2)
            #expect(crossings.filter { $0.identifier == "pier-head" }.map(\.satisfied).prefix(2) == [true, false])
            #expect(crossings.filter { $0.identifier == "campus" }.map(\.satisfied) == [false, true])
            #expect(received.allSatisfy { $0.refinement == nil && !$0.authorizationDenied && !$0.conditionLimitExceeded })
        }

        @Test("assuming .satisfied for a circle the walk never enters gives one .unsatisfied event; assuming .unsatisfied gives none")
        func assumedState() async throws {
            SimulatedDevice.current = try SimulatedDevice(trace: path(limeStreetWalk))
            defer { SimulatedDevice.current = nil }
            let monitor = await CLMonitor.requestMonitor(named: "assumed")
            await monitor.add(pierHead, identifier: "assumed-inside", assuming: .satisfied)
            await monitor.add(pierHead, identifier: "assumed-outside", assuming: .unsatisfied)
            #expect(await monitor.record(for: "assumed-inside")?.lastEvent.state == .satisfied)
            let events = await monitor.events
            await SimulatedDevice.current?.run()
            let received = await collect(events)
            #expect(received.map(\.identifier) == ["assumed-inside"])
            #expect(received.map(\.state) == [.unsatisfied])
            #expect(await monitor.record(for: "assumed-outside")?.lastEvent.state == .unsatisfied)
        }

        /// The events of a monitor of `conditions` on the pier-head walk, with
        /// `change` made one second in (at `changed`, seconds since 1970).
        func midWalk(_ name: String, _ conditions: [(String, CLMonitor.CircularGeographicCondition)],
                     change: (CLMonitor) async -> Void) async throws -> (events: [CLMonitor.Event], monitor: CLMonitor, changed: Double) {
            let device = try SimulatedDevice(trace: path(pierHeadWalk))
            SimulatedDevice.current = device
            defer { SimulatedDevice.current = nil }
            let monitor = await CLMonitor.requestMonitor(named: name)
            for (id, condition) in conditions { await monitor.add(condition, identifier: id) }
            let events = await monitor.events
            await device.advance(by: 1)
            let changed = device.now
            await change(monitor)
            await device.run()
            return (await collect(events), monitor, changed)
        }

        @Test("remove stops a condition's events and forgets it; the others go on")
        func removeStopsEvents() async throws {
            let (received, monitor, removed) = try await midWalk("removal", [("pier-head", pierHead), ("campus", campus)]) { await $0.remove("campus") }
            #expect(!received.contains { $0.identifier == "campus" && $0.date.timeIntervalSince1970 > removed })
            #expect(received.contains { $0.identifier == "pier-head" && $0.state == .unsatisfied })
            #expect(await monitor.record(for: "campus") == nil)
            #expect(await monitor.identifiers == ["pier-head"])
        }

        @Test("a condition added mid-walk is evaluated from then on; the others' states are not reported again")
        func addMidWalk() async throws {
            let (received, _, added) = try await midWalk("later", [("pier-head", pierHead)]) { await $0.add(campus, identifier: "campus") }
            #expect(received.filter { $0.identifier == "pier-head" }.map(\.state) == [.satisfied, .unsatisfied])
            #expect(received.filter { $0.identifier == "campus" }.map(\.state) == [.unsatisfied, .satisfied])
            #expect(received.first { $0.identifier == "campus" }.map { $0.date.timeIntervalSince1970 >= added } == true)
        }

        @Test("record(for:) holds the condition and its last event; identifiers lists the conditions in the order added; a live name gives the same monitor")
        func recordsAndIdentifiers() async throws {
            SimulatedDevice.current = try SimulatedDevice(trace: path(pierHeadWalk))
            defer { SimulatedDevice.current = nil }
            let monitor = await CLMonitor.requestMonitor(named: "records")
            #expect(await CLMonitor.requestMonitor(named: "records") === monitor)
            #expect(monitor.name == "records")
            await monitor.add(pierHead, identifier: "pier-head")
            await monitor.add(campus, identifier: "campus")
            #expect(await monitor.identifiers == ["pier-head", "campus"])
            let before = try #require(await monitor.record(for: "pier-head"))
            #expect(before.lastEvent.state == .unknown && before.lastEvent.date == .distantPast)
            let events = await monitor.events
            await SimulatedDevice.current?.run()
            let received = await collect(events)
            for id in ["pier-head", "campus"] {
                let record = try #require(await monitor.record(for: id))
                let last = try #require(received.last { $0.identifier == id })
                #expect(record.lastEvent.state == last.state && record.lastEvent.date == last.date)
            }
            let circle = try #require(await monitor.record(for: "campus")?.condition as? CLMonitor.CircularGeographicCondition)
            #expect(circle.radius == 300 && circle.center.latitude == 53.4058)
            #expect(await monitor.record(for: "nowhere") == nil)
        }

        @Test("what Stroll cannot evaluate says why: an app's own condition is unsupported, the 21st circle is past the limit, no authorization is denied")
        func unevaluated() async throws {
            SimulatedDevice.current = try SimulatedDevice(trace: path(pierHeadWalk))
            let monitor = await CLMonitor.requestMonitor(named: "limits")
            await monitor.add(ShopOpenCondition(), identifier: "shop")
            for i in 0..<21 { await monitor.add(campus, identifier: "circle-\(i)") }
            let events = await monitor.events
            await SimulatedDevice.current?.run()
            let received = await collect(events)
            #expect(received.filter(\.conditionUnsupported).map(\.identifier) == ["shop"])
            #expect(received.filter(\.conditionLimitExceeded).map(\.identifier) == ["circle-20"])
            #expect(received.filter { $0.state == .unknown }.count == 2)

            SimulatedDevice.current = try SimulatedDevice(trace: path(pierHeadWalk), authorization: .denied)
            defer { SimulatedDevice.current = nil }
            let denied = await CLMonitor.requestMonitor(named: "denied")
            await denied.add(pierHead, identifier: "pier-head")
            let deniedEvents = await denied.events
            await SimulatedDevice.current?.run()
            let refused = await collect(deniedEvents)
            #expect(refused.count == 1 && refused.first?.authorizationDenied == true && refused.first?.state == .unknown)
        }
    }
}
