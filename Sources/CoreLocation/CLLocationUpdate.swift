#if !canImport(Darwin)
import Foundation

/// iOS 17's update: a fix (or none) and whether the device stands still.
public struct CLLocationUpdate: Sendable {
    public let location: CLLocation?
    public let isStationary: Bool
    /// iOS 18's diagnostics that Stroll can know.
    public let authorizationDenied: Bool
    public let locationUnavailable: Bool

    public init(location: CLLocation?, isStationary: Bool = false, authorizationDenied: Bool = false, locationUnavailable: Bool = false) {
        self.location = location
        self.isStationary = isStationary
        self.authorizationDenied = authorizationDenied
        self.locationUnavailable = locationUnavailable
    }

    /// What kind of movement the updates are tuned for, as Apple's; the simulation delivers the same fixes for each.
    public struct LiveConfiguration: Sendable, Equatable {
        let name: String
        public static let `default` = LiveConfiguration(name: "default")
        public static let automotiveNavigation = LiveConfiguration(name: "automotiveNavigation")
        public static let otherNavigation = LiveConfiguration(name: "otherNavigation")
        public static let fitness = LiveConfiguration(name: "fitness")
        public static let airborne = LiveConfiguration(name: "airborne")
    }

    /// Every fix the device makes, with no distance filter, from the next
    /// moment the device steps (under Stroll: the next `run()` or `advance`).
    /// When the device stops (under Stroll: 120 s within 10 m) one update says
    /// `isStationary`, without a location, and none follow until it moves.
    /// The configuration is accepted and not used: every configuration gets
    /// the same updates. Under Stroll the sequence ends when the replayed walk
    /// ends; with no device installed it yields one update with
    /// `locationUnavailable` and ends.
    public static func liveUpdates(_ configuration: LiveConfiguration = .default) -> Updates {
        let (stream, continuation) = AsyncStream.makeStream(of: CLLocationUpdate.self)
        CLDevice.requestLiveUpdates(continuation)
        return Updates(stream: stream, continuation: continuation)
    }

    /// The updates of ``CLLocationUpdate/liveUpdates(_:)``, as an `AsyncSequence`.
    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = CLLocationUpdate
        let stream: AsyncStream<CLLocationUpdate>
        let continuation: AsyncStream<CLLocationUpdate>.Continuation

        /// Hands out the updates as the device makes them.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<CLLocationUpdate>.Iterator
            var unchecked: AsyncStream<CLLocationUpdate>.Continuation?

            public mutating func next() async throws -> CLLocationUpdate? {
                if let continuation = unchecked {
                    unchecked = nil
                    let hasDevice = await MainActor.run { CLDevice.current != nil }
                    if !hasDevice {
                        continuation.yield(CLLocationUpdate(location: nil, locationUnavailable: true))
                        continuation.finish()
                    }
                }
                return await base.next()
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator(), unchecked: continuation) }
    }
}
#endif
