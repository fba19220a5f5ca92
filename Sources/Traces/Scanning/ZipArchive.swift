import CZlib
import Foundation

/// A trace inside a ZIP archive: KMZ (zipped KML, as Google Earth writes it) or
/// a `.zip` holding one trace file.
///
/// The central directory at the end of the archive is read once (ZIP64 too);
/// the member is then streamed from its local header through zlib's raw
/// inflate, never held whole, and its CRC-32 and size are checked at the end.
/// The member is the one Google Earth opens: `doc.kml` if present, else the
/// first `.kml` in the directory; in an archive with no KML, the first file
/// with a trace extension. Stored and deflated members are read; encrypted ones
/// and other methods are refused by name.
///
/// ZIPFoundation (a well-kept Swift ZIP library) was considered and not used:
/// its extraction pushes bytes into a closure, while every Stroll reader pulls
/// bytes as it parses, so streaming through it would need a temporary file or
/// a second thread; the directory format itself is short and fixed, and zlib is
/// already linked for gzip.
final class ZipMember {
    /// A member's entry in the central directory.
    struct Entry {
        var name: String
        var flags: UInt16
        var method: UInt16
        var crc32: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var localHeaderOffset: UInt64
    }

    /// Random access to the archive's bytes.
    enum Storage {
        case file(FileHandle)
        case memory(Data)
    }

    /// The central directory is read into memory whole; beyond this it is refused.
    static let maximumDirectoryBytes: UInt64 = 64 << 20
    /// A member that says it inflates more than `maximumRatio` times its size,
    /// past `ratioCheckedFrom` bytes, is refused as a zip bomb.
    static let maximumRatio: UInt64 = 100
    static let ratioCheckedFrom: UInt64 = 100 << 20

    static let traceExtensions: Set<String> = ["kml", "gpx", "tcx", "csv", "tsv", "geojson", "json", "nmea", "nma", "plt"]

    let entry: Entry
    private let storage: Storage
    private let path: String
    private var position: UInt64
    private var remaining: UInt64
    private let inflater: GzipInflater?
    private var crc: uLong = 0
    private var produced: UInt64 = 0
    private var finished = false

    /// Opens the chosen member of the archive at `path`.
    init(storage: Storage, path: String) throws(TraceError) {
        self.storage = storage
        self.path = path
        let entries = try Self.directory(storage, path: path)
        guard let chosen = Self.choose(entries) else {
            let names = entries.prefix(8).map(\.name).joined(separator: ", ")
            throw TraceError(.malformed, file: path, reason: entries.isEmpty
                ? "the archive is empty: a KMZ must hold a KML file (doc.kml)"
                : "the archive holds no KML file (nor another trace file); it holds: \(names)\(entries.count > 8 ? ", …" : "")")
        }
        entry = chosen
        if chosen.flags & 1 != 0 {
            throw TraceError(.malformed, file: path, reason: "\(chosen.name) in the archive is encrypted")
        }
        switch chosen.method {
        case 0: inflater = nil
        case 8: inflater = try GzipInflater(raw: true)
        default:
            throw TraceError(.malformed, file: path, reason: "\(chosen.name) is compressed with method \(chosen.method); only stored (0) and deflate (8) are read")
        }
        if chosen.uncompressedSize > Self.ratioCheckedFrom,
           chosen.uncompressedSize / max(chosen.compressedSize, 1) > Self.maximumRatio {
            throw TraceError(.malformed, file: path, reason: "\(chosen.name) would inflate from \(chosen.compressedSize) to \(chosen.uncompressedSize) bytes (more than \(Self.maximumRatio) times): refused as a zip bomb")
        }
        let header = try Self.read(storage, at: chosen.localHeaderOffset, count: 30, path: path)
        guard header.count == 30, Self.u32(header, 0) == 0x0403_4B50 else {
            throw TraceError(.malformed, file: path, reason: "not a valid ZIP archive: \(chosen.name)'s local header is missing")
        }
        position = chosen.localHeaderOffset + 30 + UInt64(Self.u16(header, 26)) + UInt64(Self.u16(header, 28))
        remaining = chosen.compressedSize
        crc = crc32(0, nil, 0)
    }

    /// The name errors give for a line of the member: `walk.kmz(doc.kml)`, as linkers name archive members.
    var displayName: String { "\(path)(\(entry.name))" }

    /// Up to `limit` bytes of the member; empty at its end.
    func next(limit: Int) throws(TraceError) -> Data {
        while !finished {
            if let inflater {
                let out: [UInt8]
                do {
                    out = try inflater.next(limit: limit)
                } catch {
                    throw TraceError(.malformed, file: displayName, reason: error.reason)
                }
                if !out.isEmpty { return try account(Data(out)) }
                if inflater.memberEnded || remaining == 0 {
                    guard inflater.memberEnded else {
                        throw TraceError(.malformed, file: displayName, reason: "the archive is truncated or corrupt: \(entry.name)'s compressed data ends early")
                    }
                    try finish()
                    break
                }
                inflater.feed(try take(min(remaining, UInt64(ByteSource.chunkSize))))
            } else {
                guard remaining > 0 else {
                    try finish()
                    break
                }
                return try account(try take(min(remaining, UInt64(limit))))
            }
        }
        return Data()
    }

    private func take(_ count: UInt64) throws(TraceError) -> Data {
        let bytes = try Self.read(storage, at: position, count: Int(count), path: path)
        guard !bytes.isEmpty else {
            throw TraceError(.malformed, file: displayName, reason: "the archive is truncated: \(entry.name) ends early")
        }
        position += UInt64(bytes.count)
        remaining -= UInt64(bytes.count)
        return bytes
    }

    private func account(_ bytes: Data) throws(TraceError) -> Data {
        produced += UInt64(bytes.count)
        guard produced <= entry.uncompressedSize else {
            throw TraceError(.malformed, file: displayName, reason: "\(entry.name) inflates beyond the \(entry.uncompressedSize) bytes its directory entry declares: refused as a zip bomb")
        }
        crc = bytes.withUnsafeBytes { raw in
            crc32(crc, raw.bindMemory(to: Bytef.self).baseAddress, uInt(raw.count))
        }
        return bytes
    }

    private func finish() throws(TraceError) {
        finished = true
        guard produced == entry.uncompressedSize else {
            throw TraceError(.malformed, file: displayName, reason: "\(entry.name) holds \(produced) bytes, not the \(entry.uncompressedSize) its directory entry declares: the archive is corrupt")
        }
        guard UInt32(truncatingIfNeeded: crc) == entry.crc32 else {
            throw TraceError(.malformed, file: displayName, reason: "\(entry.name) fails its CRC-32 check: the archive is corrupt")
        }
    }

    // MARK: The central directory

    static func choose(_ entries: [Entry]) -> Entry? {
        let files = entries.filter { !$0.name.hasSuffix("/") }
        /// The last component's text after its last dot (none for a leading dot), read by hand:
        /// Foundation's `pathExtension` traps on some names a broken archive may hold.
        func ext(_ e: Entry) -> String {
            let component = e.name.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
            guard let dot = component.lastIndex(of: "."), dot != component.startIndex else { return "" }
            return component[component.index(after: dot)...].lowercased()
        }
        return files.first { $0.name.lowercased() == "doc.kml" }
            ?? files.first { ext($0) == "kml" }
            ?? files.first { traceExtensions.contains(ext($0)) }
    }

    static func directory(_ storage: Storage, path: String) throws(TraceError) -> [Entry] {
        func bad(_ reason: String) -> TraceError { TraceError(.malformed, file: path, reason: "not a valid ZIP archive: \(reason)") }
        let size = try self.size(storage, path: path)
        let tailLength = min(size, 22 + 65_535)
        let tail = try read(storage, at: size - tailLength, count: Int(tailLength), path: path)
        guard tail.count >= 22 else { throw bad("it is shorter than its end record") }
        var end: Int?
        var i = tail.count - 22
        while i >= 0 {
            if u32(tail, i) == 0x0605_4B50 && i + 22 + Int(u16(tail, i + 20)) <= tail.count {
                end = i
                break
            }
            i -= 1
        }
        guard let end else { throw bad("no end-of-central-directory record (truncated?)") }
        var count = UInt64(u16(tail, end + 10))
        var directorySize = UInt64(u32(tail, end + 12))
        var directoryOffset = UInt64(u32(tail, end + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // ZIP64: the locator stands just before the end record.
            guard end >= 20, u32(tail, end - 20) == 0x0706_4B50 else { throw bad("a ZIP64 archive without its locator") }
            let recordOffset = u64(tail, end - 12)
            let record = try read(storage, at: recordOffset, count: 56, path: path)
            guard record.count == 56, u32(record, 0) == 0x0606_4B50 else { throw bad("the ZIP64 end record is missing") }
            count = u64(record, 32)
            directorySize = u64(record, 40)
            directoryOffset = u64(record, 48)
        }
        guard directorySize <= maximumDirectoryBytes else { throw bad("its central directory is larger than \(maximumDirectoryBytes >> 20) MiB") }
        guard directoryOffset <= size, directorySize <= size - directoryOffset else { throw bad("its central directory lies outside the file (truncated?)") }
        let directory = try read(storage, at: directoryOffset, count: Int(directorySize), path: path)
        var entries: [Entry] = []
        var at = 0
        while entries.count < count {
            guard at + 46 <= directory.count, u32(directory, at) == 0x0201_4B50 else {
                throw bad("central directory entry \(entries.count + 1) is damaged")
            }
            let nameLength = Int(u16(directory, at + 28)), extraLength = Int(u16(directory, at + 30)), commentLength = Int(u16(directory, at + 32))
            let next = at + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { throw bad("central directory entry \(entries.count + 1) is cut short") }
            let nameBytes = directory[(directory.startIndex + at + 46)..<(directory.startIndex + at + 46 + nameLength)]
            var entry = Entry(
                name: String(decoding: nameBytes, as: UTF8.self), flags: u16(directory, at + 8), method: u16(directory, at + 10),
                crc32: u32(directory, at + 16), compressedSize: UInt64(u32(directory, at + 20)),
                uncompressedSize: UInt64(u32(directory, at + 24)), localHeaderOffset: UInt64(u32(directory, at + 42)))
            // ZIP64 extended information: the 64-bit values of the fields that say 0xFFFFFFFF, in order.
            var extra = at + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let id = u16(directory, extra), length = Int(u16(directory, extra + 2))
                guard extra + 4 + length <= extraEnd else { break }
                if id == 0x0001 {
                    var field = extra + 4
                    func next64() -> UInt64? {
                        guard field + 8 <= extra + 4 + length else { return nil }
                        defer { field += 8 }
                        return u64(directory, field)
                    }
                    if entry.uncompressedSize == 0xFFFF_FFFF, let v = next64() { entry.uncompressedSize = v }
                    if entry.compressedSize == 0xFFFF_FFFF, let v = next64() { entry.compressedSize = v }
                    if entry.localHeaderOffset == 0xFFFF_FFFF, let v = next64() { entry.localHeaderOffset = v }
                }
                extra += 4 + length
            }
            guard entry.localHeaderOffset < size, entry.compressedSize <= size else {
                throw bad("\(entry.name)'s directory entry points outside the file")
            }
            entries.append(entry)
            at = next
        }
        return entries
    }

    // MARK: Bytes

    static func size(_ storage: Storage, path: String) throws(TraceError) -> UInt64 {
        switch storage {
        case .memory(let data): return UInt64(data.count)
        case .file(let handle):
            do { return try handle.seekToEnd() } catch {
                throw TraceError(.unreadable, file: path, reason: "cannot seek in the archive: \(ErrorWords.reason(error))")
            }
        }
    }

    static func read(_ storage: Storage, at offset: UInt64, count: Int, path: String) throws(TraceError) -> Data {
        switch storage {
        case .memory(let data):
            guard offset < UInt64(data.count) else { return Data() }
            let start = data.startIndex + Int(offset)
            return Data(data[start..<min(start + count, data.endIndex)])
        case .file(let handle):
            do {
                try handle.seek(toOffset: offset)
                return try handle.read(upToCount: count) ?? Data()
            } catch {
                throw TraceError(.unreadable, file: path, reason: "read failed: \(ErrorWords.reason(error))")
            }
        }
    }

    static func u16(_ d: Data, _ i: Int) -> UInt16 {
        let s = d.startIndex + i
        return UInt16(d[s]) | UInt16(d[s + 1]) << 8
    }

    static func u32(_ d: Data, _ i: Int) -> UInt32 {
        UInt32(u16(d, i)) | UInt32(u16(d, i + 2)) << 16
    }

    static func u64(_ d: Data, _ i: Int) -> UInt64 {
        UInt64(u32(d, i)) | UInt64(u32(d, i + 4)) << 32
    }
}

/// Writes a ZIP archive of one deflated member: a KMZ is `doc.kml` zipped, the
/// form Google Earth and Android's emulator open.
enum ZipWriter {
    static func archive(member name: String, contents: Data, time: Date = Date(timeIntervalSince1970: 0)) -> Data {
        let compressed = deflateRaw(contents)
        let crc = contents.withUnsafeBytes { raw in
            UInt32(truncatingIfNeeded: crc32(crc32(0, nil, 0), raw.bindMemory(to: Bytef.self).baseAddress, uInt(raw.count)))
        }
        let nameBytes = Array(name.utf8)
        // MS-DOS time and date (1980-01-01 00:00 when the time is before 1980).
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: time)
        let year = max((c.year ?? 1980) - 1980, 0)
        let dosDate = UInt16(truncatingIfNeeded: year << 9 | (c.month ?? 1) << 5 | (c.day ?? 1))
        let dosTime = year == 0 && (c.year ?? 1980) < 1980 ? 0 : UInt16(truncatingIfNeeded: (c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2)
        var out = Data()
        func u16(_ v: UInt16) { out.append(UInt8(v & 0xFF)); out.append(UInt8(v >> 8)) }
        func u32(_ v: UInt32) { u16(UInt16(v & 0xFFFF)); u16(UInt16(v >> 16)) }
        let method: UInt16 = 8
        // Local header, data.
        u32(0x0403_4B50); u16(20); u16(0x0800); u16(method); u16(dosTime); u16(dosDate)
        u32(crc); u32(UInt32(compressed.count)); u32(UInt32(contents.count)); u16(UInt16(nameBytes.count)); u16(0)
        out.append(contentsOf: nameBytes)
        out.append(compressed)
        // Central directory, end record.
        let directoryOffset = out.count
        u32(0x0201_4B50); u16(20); u16(20); u16(0x0800); u16(method); u16(dosTime); u16(dosDate)
        u32(crc); u32(UInt32(compressed.count)); u32(UInt32(contents.count)); u16(UInt16(nameBytes.count)); u16(0); u16(0)
        u16(0); u16(0); u32(0); u32(0)
        out.append(contentsOf: nameBytes)
        let directorySize = out.count - directoryOffset
        u32(0x0605_4B50); u16(0); u16(0); u16(1); u16(1); u32(UInt32(directorySize)); u32(UInt32(directoryOffset)); u16(0)
        return out
    }

    /// Raw deflate (no zlib or gzip wrapper), as a ZIP member holds it.
    static func deflateRaw(_ input: Data) -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return Data() }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        var source = [UInt8](input)
        let produced: Int = source.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                _ = deflate(&stream, Z_FINISH)
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Data(output[..<produced])
    }
}
