import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an output file was not written: the path and the reason in the
/// system's words (`No such file or directory`, `File too large`).
public struct OutputFileError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// Whether the file could not be made or could not be written whole.
    public enum Kind: Sendable {
        /// The file cannot be created there (no such folder, no permission,
        /// a folder in the way): sysexits' EX_CANTCREAT, 73.
        case cannotCreate
        /// Writing it failed midway (a full disk, a file too large, an I/O
        /// error): EX_IOERR, 74. Nothing of it was left.
        case writeFailed
    }

    /// Made or written.
    public var kind: Kind
    /// The file as it was named.
    public var path: String
    /// The system's reason (`strerror`).
    public var reason: String

    /// The error of `kind` at `path` for `reason`.
    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    init(_ kind: Kind, path: String, errno code: Int32) {
        self.init(kind, path: path, reason: String(cString: strerror(code)))
    }

    /// `cannot create PATH: REASON` or `cannot write PATH: REASON`.
    public var description: String {
        switch kind {
        case .cannotCreate: "cannot create \(path): \(reason)"
        case .writeFailed: "cannot write \(path): \(reason)"
        }
    }

    /// The same as ``description``, for Foundation's `localizedDescription`.
    public var errorDescription: String? { description }

    /// The exit code of sysexits.h for it: 73 or 74.
    public var exitCode: Int32 { kind == .cannotCreate ? 73 : 74 }
}

/// The one way Stroll writes a file: into a temporary file beside it, flushed
/// to the disk (`fsync`), then renamed over the path, so that a kill or a
/// crash at any moment leaves the old file or the new one, never half of
/// one; a write that fails removes the temporary file and names the path.
public enum OutputFile {
    /// Throws unless a file can be created at `path`: its folder exists and
    /// takes new files, and no folder stands at the path itself. Checked by
    /// creating and removing a temporary file beside it, before any work
    /// whose result would go there.
    public static func checkCreatable(_ path: String) throws(OutputFileError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw OutputFileError(.cannotCreate, path: path, reason: "is a directory")
        }
        let (descriptor, temporary) = try openTemporary(beside: path)
        close(descriptor)
        unlink(temporary)
    }

    /// Writes `text` to `path` (see ``OutputFile``).
    public static func write(_ text: String, to path: String) throws(OutputFileError) {
        var text = text
        let result: Result<Void, OutputFileError> = text.withUTF8 { bytes in
            Result { () throws(OutputFileError) in try write(UnsafeRawBufferPointer(bytes), to: path) }
        }
        try result.get()
    }

    /// Writes `data` to `path` (see ``OutputFile``).
    public static func write(_ data: Data, to path: String) throws(OutputFileError) {
        let result: Result<Void, OutputFileError> = data.withUnsafeBytes { bytes in
            Result { () throws(OutputFileError) in try write(bytes, to: path) }
        }
        try result.get()
    }

    /// Writes `bytes` to `path` (see ``OutputFile``).
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(OutputFileError) {
        let (descriptor, temporary) = try openTemporary(beside: path)
        var done = 0
        while done < bytes.count, let base = bytes.baseAddress {
            let n = systemWrite(descriptor, base + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = n < 0 ? errno : ENOSPC
                close(descriptor)
                unlink(temporary)
                throw OutputFileError(.writeFailed, path: path, errno: code)
            }
            done += n
        }
        if fsync(descriptor) != 0 {
            let code = errno
            close(descriptor)
            unlink(temporary)
            throw OutputFileError(.writeFailed, path: path, errno: code)
        }
        if close(descriptor) != 0 {
            let code = errno
            unlink(temporary)
            throw OutputFileError(.writeFailed, path: path, errno: code)
        }
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw OutputFileError(.writeFailed, path: path, errno: code)
        }
        // The rename itself reaches the disk with the folder's own flush.
        let folder = open(folderPath(of: path), O_RDONLY)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// A new temporary file beside `path`, readable by others as a file
    /// made with the default umask would be.
    private static func openTemporary(beside path: String) throws(OutputFileError) -> (Int32, String) {
        let folder = folderPath(of: path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        var template = Array("\(folder)/.\(name).XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard descriptor >= 0 else { throw OutputFileError(.cannotCreate, path: path, errno: errno) }
        let mask = umask(0)
        umask(mask)
        _ = fchmod(descriptor, 0o666 & ~mask)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (descriptor, temporary)
    }

    private static func folderPath(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }
}

@inline(__always)
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
