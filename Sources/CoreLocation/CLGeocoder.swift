#if !canImport(Darwin)
import Foundation
import Geodesy
import Streets
import Synchronization

/// What a geocode hands back: the placemarks found, or the error.
public typealias CLGeocodeCompletionHandler = @MainActor ([CLPlacemark]?, (any Error)?) -> Void

/// Geocoding as CoreLocation's, offline: answered from an address index
/// (`Streets`'s `AddressIndex`) instead of Apple's servers, so the same
/// question gets the same answer on every run.
///
/// The index is the one this geocoder was made with (`init(addresses:)`),
/// else the installed device's when the request is made (`CLDevice.addresses`,
/// which StrollSimulation's `SimulatedDevice` sets). With neither, every
/// request fails with `CLError.network`, as iOS's does offline; a request
/// that finds nothing fails with `CLError.geocodeFoundNoResult`.
///
/// One request at a time, as on iOS: a request made while another is pending
/// fails with `CLError.geocodeCanceled` and the pending one goes on. Answers
/// and completion handlers come on the main actor, after the call returns.
public final class CLGeocoder: NSObject, Sendable {
    private struct Pending {
        var ticket: UInt64
        var handler: CLGeocodeCompletionHandler
    }

    private let source: AddressIndex?
    private let state = Mutex<(lastTicket: UInt64, pending: Pending?)>((0, nil))

    /// A geocoder that asks the installed device's address index.
    public override init() {
        source = nil
    }

    /// A geocoder that answers from `addresses`, whatever device is installed.
    public init(addresses: AddressIndex) {
        source = addresses
    }

    /// Whether a request is pending: from the call until its completion handler runs or it is cancelled.
    public var isGeocoding: Bool {
        state.withLock { $0.pending != nil }
    }

    /// The address nearest `location`, within `AddressIndex.defaultReverseRadius`
    /// (100 m) by the WGS84 geodesic: one placemark, or `CLError.geocodeFoundNoResult`.
    public func reverseGeocodeLocation(_ location: CLLocation, completionHandler: @escaping CLGeocodeCompletionHandler) {
        let coordinate = location.coordinate
        start(completionHandler) { index in
            guard let point = try? Coordinate(latitude: coordinate.latitude, longitude: coordinate.longitude) else { return [] }
            return index.nearest(to: point).map { [$0.address] } ?? []
        }
    }

    /// The address nearest `location`, as ``reverseGeocodeLocation(_:completionHandler:)``;
    /// cancelling the task cancels the request.
    public func reverseGeocodeLocation(_ location: CLLocation) async throws -> [CLPlacemark] {
        try await answer { reverseGeocodeLocation(location, completionHandler: $0) }
    }

    /// The addresses `addressString` names, best first: its street (or a
    /// building's name) and house number, and optionally the city, suburb,
    /// postcode, state or country code, compared without case or accents
    /// (`AddressIndex.search(_:)` has the rule). An empty string finds nothing.
    public func geocodeAddressString(_ addressString: String, completionHandler: @escaping CLGeocodeCompletionHandler) {
        start(completionHandler) { index in index.search(addressString) }
    }

    /// The addresses `addressString` names, as ``geocodeAddressString(_:completionHandler:)``;
    /// cancelling the task cancels the request.
    public func geocodeAddressString(_ addressString: String) async throws -> [CLPlacemark] {
        try await answer { geocodeAddressString(addressString, completionHandler: $0) }
    }

    /// As ``reverseGeocodeLocation(_:completionHandler:)``: the placemark's
    /// words are the extract's as its tags write them, whatever the locale.
    public func reverseGeocodeLocation(_ location: CLLocation, preferredLocale locale: Locale?,
                                       completionHandler: @escaping CLGeocodeCompletionHandler) {
        reverseGeocodeLocation(location, completionHandler: completionHandler)
    }

    /// As ``reverseGeocodeLocation(_:)``, whatever the locale.
    public func reverseGeocodeLocation(_ location: CLLocation, preferredLocale locale: Locale?) async throws -> [CLPlacemark] {
        try await reverseGeocodeLocation(location)
    }

    /// As ``geocodeAddressString(_:completionHandler:)``, with a region as a
    /// hint: the addresses inside a `CLCircularRegion` come first, then the others.
    public func geocodeAddressString(_ addressString: String, in region: CLRegion?, completionHandler: @escaping CLGeocodeCompletionHandler) {
        let hint = (region as? CLCircularRegion).flatMap { circle in
            (try? Coordinate(latitude: circle.center.latitude, longitude: circle.center.longitude)).map { ($0, circle.radius) }
        }
        start(completionHandler) { index in
            guard let (center, radius) = hint else { return index.search(addressString) }
            return index.search(addressString, preferringWithin: radius, of: center)
        }
    }

    /// As ``geocodeAddressString(_:in:completionHandler:)``, whatever the locale.
    public func geocodeAddressString(_ addressString: String, in region: CLRegion?, preferredLocale locale: Locale?,
                                     completionHandler: @escaping CLGeocodeCompletionHandler) {
        geocodeAddressString(addressString, in: region, completionHandler: completionHandler)
    }

    /// As ``geocodeAddressString(_:in:completionHandler:)``; cancelling the task cancels the request.
    public func geocodeAddressString(_ addressString: String, in region: CLRegion?) async throws -> [CLPlacemark] {
        try await answer { geocodeAddressString(addressString, in: region, completionHandler: $0) }
    }

    /// As ``geocodeAddressString(_:in:)``, whatever the locale.
    public func geocodeAddressString(_ addressString: String, in region: CLRegion?, preferredLocale locale: Locale?) async throws -> [CLPlacemark] {
        try await geocodeAddressString(addressString, in: region)
    }

    /// Cancels the pending request, if any: its completion handler gets `CLError.geocodeCanceled`.
    public func cancelGeocode() {
        guard let pending = state.withLock({ state in
            defer { state.pending = nil }
            return state.pending
        }) else { return }
        Task { @MainActor in pending.handler(nil, CLError(.geocodeCanceled)) }
    }

    private func start(_ handler: @escaping CLGeocodeCompletionHandler, lookup: @escaping @Sendable (AddressIndex) -> [Address]) {
        let ticket: UInt64? = state.withLock { state in
            guard state.pending == nil else { return nil }
            state.lastTicket += 1
            state.pending = Pending(ticket: state.lastTicket, handler: handler)
            return state.lastTicket
        }
        guard let ticket else {
            Task { @MainActor in handler(nil, CLError(.geocodeCanceled)) }
            return
        }
        // The addresses of the moment the request is made.
        let chosen = source ?? CLDevice.addresses
        Task { @MainActor in
            let result: Result<[CLPlacemark], CLError>
            if let index = chosen {
                let found = lookup(index)
                result = found.isEmpty ? .failure(CLError(.geocodeFoundNoResult)) : .success(found.map(CLPlacemark.init(address:)))
            } else {
                result = .failure(CLError(.network))
            }
            let pending: Pending? = self.state.withLock { state in
                guard let pending = state.pending, pending.ticket == ticket else { return nil }
                state.pending = nil
                return pending
            }
            guard let pending else { return }
            switch result {
            case .success(let placemarks): pending.handler(placemarks, nil)
            case .failure(let error): pending.handler(nil, error)
            }
        }
    }

    private func answer(_ request: (@escaping CLGeocodeCompletionHandler) -> Void) async throws -> [CLPlacemark] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[CLPlacemark], any Error>) in
                request { placemarks, error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: placemarks ?? []) }
                }
            }
        } onCancel: {
            cancelGeocode()
        }
    }
}
#endif
