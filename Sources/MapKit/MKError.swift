#if !canImport(Darwin)
import Foundation

/// MapKit's error domain.
public let MKErrorDomain = "MKErrorDomain"

/// A MapKit error, with Apple's raw codes (the `NSError` code in `MKErrorDomain`).
public struct MKError: Error, Hashable, Sendable, CustomNSError, CustomStringConvertible {
    /// What went wrong.
    public enum Code: UInt, Sendable {
        /// An unknown error.
        case unknown = 1
        /// The server could not answer (Stroll: no OpenStreetMap extract was given, as MapKit offline).
        case serverFailure = 2
        /// Too many requests (never raised by Stroll).
        case loadingThrottled = 3
        /// A placemark was not found (Stroll: a map item without a valid coordinate).
        case placemarkNotFound = 4
        /// No route joins the points (Stroll: no walkable path, or a point too far from the streets).
        case directionsNotFound = 5
        /// An answer could not be decoded (never raised by Stroll).
        case decodingFailed = 6
    }

    /// What went wrong.
    public let code: Code
    /// Why, in Stroll's words (`NSLocalizedFailureReasonErrorKey`).
    public let reason: String?

    /// An error of `code`, with an explanation when there is one.
    public init(_ code: Code, reason: String? = nil) {
        self.code = code
        self.reason = reason
    }

    /// `MKErrorDomain`, as an `NSError` from MapKit has.
    public static var errorDomain: String { MKErrorDomain }
    /// The code's raw value.
    public var errorCode: Int { Int(code.rawValue) }
    /// The reason under `NSLocalizedFailureReasonErrorKey`.
    public var errorUserInfo: [String: Any] { reason.map { [NSLocalizedFailureReasonErrorKey: $0] } ?? [:] }
    /// The code and the reason.
    public var description: String { "MKError(\(code))" + (reason.map { ": \($0)" } ?? "") }

    // Every code as a static member, as Apple's error struct has (`MKError.directionsNotFound`).
    /// `Code.unknown`.
    public static var unknown: Code { .unknown }
    /// `Code.serverFailure`.
    public static var serverFailure: Code { .serverFailure }
    /// `Code.loadingThrottled`.
    public static var loadingThrottled: Code { .loadingThrottled }
    /// `Code.placemarkNotFound`.
    public static var placemarkNotFound: Code { .placemarkNotFound }
    /// `Code.directionsNotFound`.
    public static var directionsNotFound: Code { .directionsNotFound }
    /// `Code.decodingFailed`.
    public static var decodingFailed: Code { .decodingFailed }
}
#endif
