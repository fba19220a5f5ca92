#if !canImport(Darwin)
import Foundation

/// iOS 17's declaration that the app goes on using location in the
/// background: while a session is held, updates continue when the app is not
/// in the foreground. Under Stroll the app is always in the foreground, so a
/// session changes nothing; iOS 18's handler is told the diagnostic at the
/// session's start.
public final class CLBackgroundActivitySession: Sendable {
    /// What keeps background activity from going on, at one moment (iOS 18).
    public struct Diagnostic: Sendable, Equatable {
        /// The app was denied authorization.
        public let authorizationDenied: Bool
        /// Location services are off for the whole device (never under Stroll).
        public let authorizationDeniedGlobally: Bool
        /// Authorization is restricted, as by parental controls.
        public let authorizationRestricted: Bool
        /// The app is not in use (never under Stroll: the app is always in the foreground).
        public let insufficientlyInUse: Bool
        /// A service session is needed and none is held (never under Stroll).
        public let serviceSessionRequired: Bool

        init(status: CLAuthorizationStatus) {
            authorizationDenied = status == .denied
            authorizationDeniedGlobally = false
            authorizationRestricted = status == .restricted
            insufficientlyInUse = false
            serviceSessionRequired = false
        }
    }

    /// A session: background activity goes on until ``CLBackgroundActivitySession/invalidate()``.
    public init() {}

    /// A session whose `handler` is given, on `queue`, the diagnostic at the
    /// session's start: the device's authorization then (iOS 18). Under Stroll
    /// authorization stands once answered, so no other diagnostic follows.
    public init(queue: DispatchQueue, handler: @escaping @Sendable (Diagnostic) -> Void) {
        let tell: @MainActor @Sendable () -> Void = {
            let diagnostic = Diagnostic(status: CLDevice.current?.authorizationStatus ?? .notDetermined)
            queue.async { handler(diagnostic) }
        }
        if Thread.isMainThread {
            MainActor.assumeIsolated { tell() }
        } else {
            Task { @MainActor in tell() }
        }
    }

    /// Ends the session.
    public func invalidate() {}
}
#endif
