#if !canImport(Darwin)
import Foundation

/// iOS 18's declaration that the app is using location services: creating a
/// session with an authorization requirement asks for that authorization
/// when it is not yet determined, as `requestWhenInUseAuthorization()` or
/// `requestAlwaysAuthorization()` would, and its ``CLServiceSession/diagnostics``
/// say what stands in the way.
///
/// Under Stroll the installed device (`StrollSimulation`'s `SimulatedDevice`)
/// answers the request with the answer it was configured with; the app is
/// always in the foreground, so a session changes nothing else. A session
/// created on the main actor (as app code makes them) asks at once; one
/// created elsewhere asks on the main actor's next turn.
public final class CLServiceSession: Sendable {
    /// The authorization a session needs.
    public enum AuthorizationRequirement: Sendable, Equatable {
        /// None: the session asks for nothing.
        case none
        /// Authorization while the app is in use.
        case whenInUse
        /// Authorization at any time.
        case always
    }

    /// What keeps a session's requirement from being met, at one moment.
    public struct Diagnostic: Sendable, Equatable {
        /// The app was denied authorization.
        public let authorizationDenied: Bool
        /// Location services are off for the whole device (never under Stroll).
        public let authorizationDeniedGlobally: Bool
        /// Authorization is restricted, as by parental controls.
        public let authorizationRestricted: Bool
        /// The app is not in use (never under Stroll: the app is always in the foreground).
        public let insufficientlyInUse: Bool
        /// The session asked for `always` and the app has only when-in-use authorization.
        public let alwaysAuthorizationDenied: Bool
        /// Full accuracy was asked for and denied (never under Stroll: accuracy is always full).
        public let fullAccuracyDenied: Bool
        /// A service needs a session and there is none (never: this is one).
        public let serviceSessionRequired: Bool
        /// The authorization request is still waiting for the user's answer.
        public let authorizationRequestInProgress: Bool

        init(status: CLAuthorizationStatus, requirement: AuthorizationRequirement) {
            authorizationDenied = status == .denied
            authorizationDeniedGlobally = false
            authorizationRestricted = status == .restricted
            insufficientlyInUse = false
            alwaysAuthorizationDenied = requirement == .always && status == .authorizedWhenInUse
            fullAccuracyDenied = false
            serviceSessionRequired = false
            authorizationRequestInProgress = requirement != .none && status == .notDetermined
        }
    }

    /// The session's diagnostics as an `AsyncSequence`: one at the session's
    /// start, after its authorization request is answered, until
    /// ``CLServiceSession/invalidate()``. (A simulated device answers an
    /// authorization request at once and its answer then stands, so nothing
    /// changes after the start; on iOS a diagnostic also follows each change
    /// the user makes in Settings.)
    public struct Diagnostics: AsyncSequence, Sendable {
        public typealias Element = Diagnostic
        let stream: AsyncStream<Diagnostic>

        /// Hands out the diagnostics as they come.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Diagnostic>.Iterator

            /// The next diagnostic, or nil once the session is invalidated.
            public mutating func next() async -> Diagnostic? { await base.next() }
        }

        /// An iterator over the diagnostics.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
    }

    /// The authorization this session needs.
    public let authorizationRequirement: AuthorizationRequirement
    /// The `NSLocationTemporaryUsageDescriptionDictionary` key of a full-accuracy
    /// request, kept (accuracy is always full under Stroll).
    public let fullAccuracyPurposeKey: String?
    /// What stands in the way of the requirement, as it changes.
    public let diagnostics: Diagnostics
    private let continuation: AsyncStream<Diagnostic>.Continuation

    private init(authorization: AuthorizationRequirement, fullAccuracyPurposeKey: String?) {
        authorizationRequirement = authorization
        self.fullAccuracyPurposeKey = fullAccuracyPurposeKey
        let (stream, continuation) = AsyncStream.makeStream(of: Diagnostic.self)
        diagnostics = Diagnostics(stream: stream)
        self.continuation = continuation
        let start: @MainActor @Sendable () -> Void = { [continuation] in
            let device = CLDevice.current
            if authorization != .none, device?.authorizationStatus == .notDetermined {
                device?.requestAuthorization(always: authorization == .always)
            }
            let status = device?.authorizationStatus ?? .notDetermined
            continuation.yield(Diagnostic(status: status, requirement: authorization))
        }
        if Thread.isMainThread {
            MainActor.assumeIsolated { start() }
        } else {
            Task { @MainActor in start() }
        }
    }

    /// A session needing `authorization`: asks for it when it is not yet determined.
    public static func session(authorization: AuthorizationRequirement) -> CLServiceSession {
        CLServiceSession(authorization: authorization, fullAccuracyPurposeKey: nil)
    }

    /// A session needing `authorization` and full accuracy (always full under Stroll).
    public static func session(authorization: AuthorizationRequirement, fullAccuracyPurposeKey: String) -> CLServiceSession {
        CLServiceSession(authorization: authorization, fullAccuracyPurposeKey: fullAccuracyPurposeKey)
    }

    /// Ends the session: its diagnostics end.
    public func invalidate() {
        continuation.finish()
    }

    deinit {
        continuation.finish()
    }
}
#endif
