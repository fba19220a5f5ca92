import Foundation

/// Where a read failed: the file, its 1-based line and column, and why.
public struct TraceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Whether the file could not be opened or is not a trace.
    public enum Kind: Sendable, Equatable {
        /// The file does not exist or cannot be opened (the CLI exits 66).
        case unreadable
        /// The file's content is not a trace (the CLI exits 65).
        case malformed
    }

    public var kind: Kind
    public var file: String
    public var line: Int
    public var column: Int
    public var reason: String

    public init(_ kind: Kind, file: String, line: Int = 0, column: Int = 0, reason: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `FILE:LINE:COLUMN: reason`, the form compilers and editors understand.
    public var description: String {
        line > 0 ? "\(file):\(line):\(column): \(reason)" : "\(file): \(reason)"
    }
}

/// Reads a file in fixed-size chunks so memory stays bounded whatever its size,
/// checking as it goes that the bytes are text: valid UTF-8 (or ISO-8859-1,
/// transcoded to UTF-8, when the caller says so) with no NUL byte.
package final class ByteSource {
    static let chunkSize = 1 << 20

    /// How many bytes of a plain file one read takes (`chunkSize`; tests make it
    /// small to put chunk boundaries everywhere).
    private let readSize: Int

    private let handle: FileHandle?
    private var data: Data?
    private(set) var atEnd = false
    var latin1 = false
    /// Set when the file is gzip-compressed: its bytes are inflated as they are read.
    private var inflater: GzipInflater?
    private var checkedCompression = false
    /// Set when the file is a ZIP archive (KMZ): its chosen member is read.
    private var member: ZipMember?
    /// The name errors give: the file, or `archive.kmz(doc.kml)` for a member of an archive.
    private(set) var path: String
    /// Bytes of an incomplete UTF-8 sequence held back to the next chunk.
    private var pending: [UInt8] = []
    /// Where a plain file's chunks are read to, reused.
    private var scratch: [UInt8] = []
    /// Absolute position bookkeeping for error locations found while validating.
    private var line = 1
    private var lineStart = 0
    private var offset = 0
    /// The reader's progress observer (``ReadProgress``), the file's size and the bytes read of it.
    private let observer: ReadProgress.Observer?
    private var size: Int64 = 0
    private var stored: Int64 = 0

    /// Opens `path` for streaming; a directory or a missing file is `.unreadable`.
    package init(path: String, progress: ReadProgress.Observer? = nil, readSize: Int = ByteSource.chunkSize) throws(TraceError) {
        self.path = path
        self.readSize = max(1, readSize)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TraceError(.unreadable, file: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw TraceError(.unreadable, file: path, reason: "is a directory, not a trace file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw TraceError(.unreadable, file: path, reason: "cannot be opened for reading (permission denied?)")
        }
        self.handle = handle
        observer = progress
        if observer != nil {
            size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        }
    }

    /// Serves bytes already in memory.
    init(bytes: Data, name: String) {
        path = name
        readSize = Self.chunkSize
        handle = nil
        data = bytes
        observer = nil
    }

    deinit {
        try? handle?.close()
    }

    /// The next chunk of checked UTF-8, or nil at the end of the file.
    func nextChunk() throws(TraceError) -> [UInt8]? {
        var bytes: [UInt8] = []
        return try appendChunk(to: &bytes) ? bytes : nil
    }

    /// Appends the next chunk of checked UTF-8 to `out` (nothing on error);
    /// false at the end of the file.
    func appendChunk(to out: inout [UInt8]) throws(TraceError) -> Bool {
        guard !atEnd else { return false }
        if pending.isEmpty, offset > 0, !latin1, member == nil, inflater == nil, let handle {
            // A plain file past its first chunk: read straight into `scratch`, check it there
            // and copy what is complete once.
            let count = try readStored(from: handle)
            if count == 0 {
                atEnd = true
                return false
            }
            let valid = try scratch.withUnsafeBufferPointer { (b) throws(TraceError) -> Int in
                try validate(UnsafeBufferPointer(rebasing: b[0..<count]))
            }
            scratch.withUnsafeBufferPointer { b in
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[0..<valid]))
                if valid < count { pending.append(contentsOf: UnsafeBufferPointer(rebasing: b[valid..<count])) }
            }
            return true
        }
        var raw = try readText()
        if raw.isEmpty {
            atEnd = true
            if !pending.isEmpty { throw locate(at: offset, "invalid UTF-8: the file ends inside a multi-byte character") }
            return false
        }
        if offset == 0 && pending.isEmpty {
            try sniffEncoding(&raw)
        }
        var bytes = pending
        pending.removeAll(keepingCapacity: true)
        if latin1 {
            bytes.reserveCapacity(raw.count * 2)
            for b in raw {
                if b < 0x80 {
                    bytes.append(b)
                } else {
                    bytes.append(0xC0 | (b >> 6))
                    bytes.append(0x80 | (b & 0x3F))
                }
            }
        } else {
            bytes.append(contentsOf: raw)
        }
        let valid = try bytes.withUnsafeBufferPointer { (b) throws(TraceError) -> Int in try validate(b) }
        out.append(contentsOf: bytes[0..<valid])
        if valid < bytes.count { pending.append(contentsOf: bytes[valid...]) }
        return true
    }

    /// Reads the next chunk of a plain file into `scratch` with read(2), as many
    /// bytes as a chunk holds unless the file ends first; returns the count.
    private func readStored(from handle: FileHandle) throws(TraceError) -> Int {
        if scratch.count < readSize { scratch = [UInt8](repeating: 0, count: readSize) }
        let descriptor = handle.fileDescriptor
        var count = 0
        var failure: Int32 = 0
        scratch.withUnsafeMutableBytes { b in
            guard let start = b.baseAddress else { return }
            while count < readSize {
                let n = read(descriptor, start + count, readSize - count)
                if n > 0 {
                    count += n
                } else if n == 0 {
                    break
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
        }
        if failure != 0 {
            throw TraceError(.unreadable, file: path, reason: "read failed: \(String(cString: strerror(failure)))")
        }
        if let observer, count > 0 {
            stored += Int64(count)
            observer(stored, max(size, stored))
        }
        return count
    }

    /// The next chunk of the file as stored.
    private func readStored() throws(TraceError) -> Data {
        guard let handle else {
            defer { data = nil }
            return data ?? Data()
        }
        do {
            let chunk = try handle.read(upToCount: readSize) ?? Data()
            if let observer, !chunk.isEmpty {
                stored += Int64(chunk.count)
                observer(stored, max(size, stored))
            }
            return chunk
        } catch {
            throw TraceError(.unreadable, file: path, reason: "read failed: \(ErrorWords.reason(error))")
        }
    }

    /// The next chunk of the file's text: as stored, or inflated when the file is
    /// gzip (told by its first two bytes, whatever its name).
    private func readText() throws(TraceError) -> Data {
        if !checkedCompression {
            checkedCompression = true
            let first = try readStored()
            if first.starts(with: [0x50, 0x4B, 0x03, 0x04]) || first.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
                let storage: ZipMember.Storage
                if let handle { storage = .file(handle) } else { storage = .memory(first) }
                let member = try ZipMember(storage: storage, path: path)
                self.member = member
                path = member.displayName
            }
            guard first.starts(with: [0x1F, 0x8B]) else { return try member?.next(limit: Self.chunkSize) ?? first }
            let inflater = try GzipInflater()
            inflater.feed(first)
            self.inflater = inflater
        }
        if let member { return try member.next(limit: Self.chunkSize) }
        guard let inflater else { return try readStored() }
        while true {
            let out: [UInt8]
            do {
                out = try inflater.next(limit: Self.chunkSize)
            } catch {
                throw locate(at: offset + pending.count, error.reason)
            }
            if !out.isEmpty { return Data(out) }
            let more = try readStored()
            if more.isEmpty {
                guard inflater.memberEnded else {
                    throw locate(at: offset + pending.count, "the gzip file is truncated: it ends inside compressed data")
                }
                return Data()
            }
            inflater.feed(more)
        }
    }

    /// Drops a UTF-8 byte-order mark, refuses UTF-16, and reads the XML
    /// declaration's encoding (UTF-8 and ISO-8859-1 are supported).
    private func sniffEncoding(_ raw: inout Data) throws(TraceError) {
        if raw.starts(with: [0xEF, 0xBB, 0xBF]) { raw.removeFirst(3) }
        if raw.starts(with: [0xFE, 0xFF]) || raw.starts(with: [0xFF, 0xFE]) {
            throw TraceError(.malformed, file: path, line: 1, column: 1, reason: "UTF-16 files are not supported; save the trace as UTF-8")
        }
        guard raw.starts(with: Array("<?xml".utf8)) else { return }
        let head = raw.prefix(512).prefix { $0 != UInt8(ascii: ">") }
        let declaration = String(decoding: head, as: UTF8.self).lowercased()
        guard let range = declaration.range(of: "encoding") else { return }
        let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return }
        let value = rest.dropFirst().prefix { $0 != quote }
        switch value {
        case "utf-8", "utf8", "us-ascii", "ascii": break
        case "iso-8859-1", "latin1", "latin-1", "iso_8859-1", "iso8859-1", "windows-1252", "cp1252": latin1 = true
        default:
            throw TraceError(.malformed, file: path, line: 1, column: 1, reason: "unsupported encoding \"\(value)\"; use UTF-8 or ISO-8859-1")
        }
    }

    /// Checks UTF-8 and NUL; returns how many bytes are complete (an incomplete
    /// sequence at the very end waits for the next chunk).
    private func validate(_ b: UnsafeBufferPointer<UInt8>) throws(TraceError) -> Int {
        let n = b.count
        var i = 0
        var error: (Int, String)?
        var line = self.line, lineStart = self.lineStart
        let offset = self.offset
        scan: while i < n {
            // Eight bytes at a time while they are all printable ASCII (0x20...0x7F) or line
            // feeds: no byte with its high bit set, and the bytes below 0x20 (flagged exactly:
            // for a byte below 0x80, byte + 0x60 reaches 0x80 from 0x20 on, with no carry
            // into the next byte) exactly the line feeds, which are counted.
            if let base = b.baseAddress {
                let raw = UnsafeRawPointer(base)
                while i + 8 <= n {
                    let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    if word & 0x8080_8080_8080_8080 != 0 { break }
                    let control = ~((word & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x6060_6060_6060_6060) & 0x8080_8080_8080_8080
                    if control != 0 {
                        let feeds = ByteSearch.zeroBytes(word ^ 0x0A0A_0A0A_0A0A_0A0A)
                        if control != feeds { break }
                        line += feeds.nonzeroBitCount
                        lineStart = offset + i + (63 - feeds.leadingZeroBitCount) / 8 + 1
                    }
                    i += 8
                }
            }
            // Then byte by byte up to and through the next special byte.
            let stop = min(n, i + 8)
            while i < stop {
                let c = b[i]
                if c >= 0x20 && c < 0x80 {
                    i += 1
                    continue
                }
                if c == 0x0A {
                    line += 1
                    lineStart = offset + i + 1
                    i += 1
                    continue
                }
                if c == 0x09 || c == 0x0D {
                    i += 1
                    continue
                }
                if c < 0x20 {
                    error = (i, c == 0 ? "NUL byte in the file" : "control character 0x\(String(c, radix: 16)) in the file")
                    break scan
                }
                let length: Int
                switch c {
                case 0xC2...0xDF: length = 2
                case 0xE0...0xEF: length = 3
                case 0xF0...0xF4: length = 4
                default:
                    error = (i, "invalid UTF-8 byte 0x\(String(c, radix: 16, uppercase: true))")
                    break scan
                }
                if i + length > n { break scan }
                for k in 1..<length where b[i + k] & 0xC0 != 0x80 {
                    error = (i, "invalid UTF-8 sequence")
                    break scan
                }
                // Overlong, surrogate and out-of-range forms.
                if (c == 0xE0 && b[i + 1] < 0xA0) || (c == 0xED && b[i + 1] > 0x9F)
                    || (c == 0xF0 && b[i + 1] < 0x90) || (c == 0xF4 && b[i + 1] > 0x8F) {
                    error = (i, "invalid UTF-8 sequence")
                    break scan
                }
                i += length
            }
        }
        self.line = line
        self.lineStart = lineStart
        if let (at, reason) = error { throw locate(at: offset + at, reason) }
        self.offset += i
        return i
    }

    private func locate(at absolute: Int, _ reason: String) -> TraceError {
        TraceError(.malformed, file: path, line: line, column: absolute - lineStart + 1, reason: reason)
    }
}
