import Foundation

/// An error's reason in the user's words: the system's own text for a file
/// that cannot be read or written (`No such file or directory`), the place
/// in the data for JSON that cannot be decoded, a Swift error's own
/// description; never Foundation's "The operation could not be completed".
public enum ErrorWords {
    /// `error`'s reason, as a message after a path or an argument shows it.
    public static func reason(_ error: any Error) -> String {
        if let error = error as? DecodingError { return decoding(error) }
        if !(type(of: error) is NSError.Type) {
            if let described = error as? any LocalizedError, let text = described.errorDescription { return text }
            return String(describing: error)
        }
        return foundation(error as NSError)
    }

    private static func foundation(_ error: NSError) -> String {
        if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if error.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: error.code) {
            case .fileNoSuchFile, .fileReadNoSuchFile: return String(cString: strerror(ENOENT))
            case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
            case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
            case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
            case .fileReadTooLarge: return String(cString: strerror(EFBIG))
            case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: return "not text in the expected encoding (UTF-8)"
            default: break
            }
        }
        if let detail = error.userInfo[NSDebugDescriptionErrorKey] as? String, !detail.isEmpty { return detail }
        return "\(error.domain) error \(error.code)"
    }

    private static func decoding(_ error: DecodingError) -> String {
        func at(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? "" : " at \(path.hasPrefix(".") ? String(path.dropFirst()) : path)"
        }
        switch error {
        case .dataCorrupted(let context):
            if let underlying = context.underlyingError { return "not valid JSON: " + reason(underlying) }
            return context.debugDescription + at(context)
        case .keyNotFound(let key, let context): return "no \"\(key.stringValue)\"\(at(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return context.debugDescription + at(context)
        @unknown default: return "not the expected JSON"
        }
    }
}
