import CGEOS

/// A GEOS failure, carrying GEOS's own message where it gave one.
public enum SpatialError: Error, Equatable, Sendable, CustomStringConvertible {
    /// GEOS reported an error (its message) or returned a failure code.
    case geos(String)
    /// The caller's input cannot make the requested geometry.
    case invalidInput(String)

    public var description: String {
        switch self {
        case .geos(let message): return "GEOS: \(message)"
        case .invalidInput(let message): return message
        }
    }
}

/// Collects what GEOS says through its message handlers.
private final class MessageLog {
    var lastError: String?
    var notices: [String] = []
}

/// One GEOS context handle (the re-entrant `_r` API).
///
/// GEOS contexts are not thread-safe, so this type is deliberately not
/// `Sendable`: create one where geometry is needed, on the task or thread that
/// uses it, and let everything made with it stay there. Geometries, prepared
/// geometries and trees keep their context alive; the handle is finished when
/// the last of them goes.
public final class GEOSContext {
    let handle: GEOSContextHandle_t
    private let log: MessageLog
    private let logPointer: UnsafeMutableRawPointer

    public init() throws(SpatialError) {
        guard let handle = GEOS_init_r() else { throw .geos("GEOS_init_r returned no context") }
        self.handle = handle
        log = MessageLog()
        logPointer = Unmanaged.passUnretained(log).toOpaque()
        GEOSContext_setErrorMessageHandler_r(handle, { message, userData in
            guard let userData, let message else { return }
            Unmanaged<MessageLog>.fromOpaque(userData).takeUnretainedValue().lastError = String(cString: message)
        }, logPointer)
        GEOSContext_setNoticeMessageHandler_r(handle, { message, userData in
            guard let userData, let message else { return }
            Unmanaged<MessageLog>.fromOpaque(userData).takeUnretainedValue().notices.append(String(cString: message))
        }, logPointer)
    }

    deinit {
        GEOS_finish_r(handle)
    }

    /// Notices GEOS has given on this context (for example why a geometry is invalid).
    public var notices: [String] { log.notices }

    /// The error for a failed call: GEOS's last message, else a description of the call.
    func failure(_ what: String) -> SpatialError {
        defer { log.lastError = nil }
        return .geos(log.lastError.map { "\(what): \($0)" } ?? "\(what) failed")
    }

    /// The GEOS library version string.
    public var geosVersion: String { String(cString: GEOSversion()) }
}
