import CZlib
import Foundation
import Traces

/// Why an OpenStreetMap file cannot be read: the file, where (a byte offset in
/// a PBF, a line in XML) and the reason.
public struct OSMError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: String
    public var reason: String
    public var unreadable: Bool

    public init(file: String, location: String = "", reason: String, unreadable: Bool = false) {
        self.file = file
        self.location = location
        self.reason = reason
        self.unreadable = unreadable
    }

    public var description: String { location.isEmpty ? "\(file): \(reason)" : "\(file): \(location): \(reason)" }
}

/// One OpenStreetMap element as the readers hand it on: its kind and id, its
/// tags, and its location (node), node ids (way) or members (relation).
struct OSMElement {
    enum Kind: Int { case node = 0, way = 1, relation = 2 }
    struct Member {
        var kind: Kind
        var id: Int64
        var role: String
    }

    var kind: Kind
    var id: Int64
    var tags: [(String, String)] = []
    /// Nanodegrees (node).
    var latitude: Int64 = 0
    var longitude: Int64 = 0
    var refs: [Int64] = []
    var members: [Member] = []

    func tag(_ key: String) -> String? { tags.first { $0.0 == key }?.1 }
}

/// The protobuf wire format, read straight from bytes: the few message types
/// of the PBF format (BlobHeader, Blob, PrimitiveBlock and its groups) are
/// decoded field by field without generated code or a message object per
/// element, which is what a dense-node loop over millions of nodes wants.
struct WireReader {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        position = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    struct Malformed: Error {
        var reason: String
    }

    var atEnd: Bool { position >= end }

    mutating func varint() throws(Malformed) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw Malformed(reason: "a varint runs past the end of its message") }
            let b = bytes[position]
            position += 1
            guard shift < 64 else { throw Malformed(reason: "a varint longer than 10 bytes") }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    mutating func signed() throws(Malformed) -> Int64 {
        let v = try varint()
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    /// The next field's number and wire type; nil at the end of the message.
    mutating func field() throws(Malformed) -> (number: Int, type: Int)? {
        guard !atEnd else { return nil }
        let key = try varint()
        return (Int(key >> 3), Int(key & 7))
    }

    /// A length-delimited field's byte range.
    mutating func lengthDelimited() throws(Malformed) -> Range<Int> {
        let length = try varint()
        guard length <= UInt64(end - position) else { throw Malformed(reason: "a field of \(length) bytes runs past the end of its message") }
        let start = position
        position += Int(length)
        return start..<position
    }

    mutating func skip(_ type: Int) throws(Malformed) {
        switch type {
        case 0: _ = try varint()
        case 1: try advance(8)
        case 2: _ = try lengthDelimited()
        case 5: try advance(4)
        default: throw Malformed(reason: "unknown wire type \(type)")
        }
    }

    private mutating func advance(_ n: Int) throws(Malformed) {
        guard end - position >= n else { throw Malformed(reason: "a fixed-size field runs past the end of its message") }
        position += n
    }

    /// A packed repeated varint field, as signed (zigzag) or plain values.
    static func packed(_ bytes: [UInt8], _ range: Range<Int>, zigzag: Bool) throws(Malformed) -> [Int64] {
        var r = WireReader(bytes, range: range)
        var values: [Int64] = []
        values.reserveCapacity(range.count / 2)
        while !r.atEnd { values.append(zigzag ? try r.signed() : Int64(bitPattern: try r.varint())) }
        return values
    }

    func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
}

/// Reads an `.osm.pbf` file blob by blob (a 4-byte length, a BlobHeader, a
/// Blob: raw or zlib), in bounded memory: one blob (at most 32 MiB inflated,
/// the format's limit) at a time.
struct PBFReader {
    static let maxHeader = 64 << 10
    static let maxBlob = 32 << 20

    let path: String
    private let handle: FileHandle
    private var offset: UInt64 = 0

    init(path: String) throws(OSMError) {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw OSMError(file: path, reason: FileManager.default.fileExists(atPath: path) ? "cannot be opened for reading" : "no such file", unreadable: true)
        }
        self.handle = handle
    }

    private func error(_ reason: String, at blobOffset: UInt64) -> OSMError {
        OSMError(file: path, location: "blob at byte \(blobOffset)", reason: reason)
    }

    private mutating func read(_ count: Int, at blobOffset: UInt64, what: String) throws(OSMError) -> [UInt8] {
        let data: Data
        do {
            data = try handle.read(upToCount: count) ?? Data()
        } catch {
            throw OSMError(file: path, reason: "read failed: \(ErrorWords.reason(error))", unreadable: true)
        }
        guard data.count == count else { throw self.error("the file is truncated inside \(what) (\(data.count) of \(count) bytes)", at: blobOffset) }
        offset += UInt64(count)
        return [UInt8](data)
    }

    /// The next blob: its type (`OSMHeader`, `OSMData`) and inflated content; nil at the end of the file.
    mutating func next() throws(OSMError) -> (type: String, data: [UInt8], offset: UInt64)? {
        let at = offset
        let lengthData: Data
        do {
            lengthData = try handle.read(upToCount: 4) ?? Data()
        } catch {
            throw OSMError(file: path, reason: "read failed: \(ErrorWords.reason(error))", unreadable: true)
        }
        if lengthData.isEmpty { return nil }
        guard lengthData.count == 4 else { throw error("the file is truncated inside a blob's length", at: at) }
        offset += 4
        let headerLength = lengthData.reduce(0) { $0 << 8 | Int($1) }
        guard headerLength > 0, headerLength <= Self.maxHeader else {
            throw error("a blob header of \(headerLength) bytes (the format allows 1 to \(Self.maxHeader)): not a PBF file, or a damaged one", at: at)
        }
        let header = try read(headerLength, at: at, what: "a blob header")
        var type = ""
        var dataSize = -1
        do throws(WireReader.Malformed) {
            var r = WireReader(header)
            while let f = try r.field() {
                switch (f.number, f.type) {
                case (1, 2): type = r.string(try r.lengthDelimited())
                case (3, 0): dataSize = Int(truncatingIfNeeded: try r.varint())
                default: try r.skip(f.type)
                }
            }
        } catch {
            throw self.error("a malformed blob header: \(error.reason)", at: at)
        }
        guard dataSize >= 0 else { throw error("a blob header without the blob's size", at: at) }
        guard dataSize <= Self.maxBlob else { throw error("a blob of \(dataSize) bytes, over the format's 32 MiB limit", at: at) }
        let blob = try read(dataSize, at: at, what: "a blob")
        var raw: Range<Int>?
        var zlib: Range<Int>?
        var rawSize = -1
        do throws(WireReader.Malformed) {
            var r = WireReader(blob)
            while let f = try r.field() {
                switch (f.number, f.type) {
                case (1, 2): raw = try r.lengthDelimited()
                case (2, 0): rawSize = Int(truncatingIfNeeded: try r.varint())
                case (3, 2): zlib = try r.lengthDelimited()
                case (4, 2), (5, 2), (6, 2), (7, 2): throw WireReader.Malformed(reason: "compression other than zlib (lzma, bzip2, lz4, zstd) is not supported")
                default: try r.skip(f.type)
                }
            }
        } catch {
            throw self.error(error.reason.hasPrefix("compression") ? error.reason : "a malformed blob: \(error.reason)", at: at)
        }
        if let raw { return (type, Array(blob[raw]), at) }
        guard let zlib else { throw error("a blob with no data", at: at) }
        guard rawSize >= 0, rawSize <= Self.maxBlob else { throw error("a blob that inflates to \(rawSize) bytes (the format allows up to 32 MiB)", at: at) }
        var out = [UInt8](repeating: 0, count: rawSize)
        var outLength = uLongf(rawSize)
        let status = blob.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                uncompress(output.baseAddress, &outLength, input.baseAddress.map { $0 + zlib.lowerBound }, uLong(zlib.count))
            }
        }
        guard status == Z_OK else {
            let why = status == Z_BUF_ERROR ? "inflates to more than its stated \(rawSize) bytes" : status == Z_DATA_ERROR ? "is not a valid zlib stream" : "cannot be inflated (zlib \(status))"
            throw error("the blob's zlib data \(why)", at: at)
        }
        guard Int(outLength) == rawSize else { throw error("the blob inflates to \(outLength) bytes, not its stated \(rawSize)", at: at) }
        return (type, out, at)
    }

    /// Every element of the kinds wanted, in file order.
    static func read(_ path: String, kinds: Set<OSMElement.Kind>, visit: (OSMElement) throws(OSMError) -> Void) throws(OSMError) {
        var reader = try PBFReader(path: path)
        var sawHeader = false
        while let (type, data, at) = try reader.next() {
            switch type {
            case "OSMHeader":
                sawHeader = true
                try checkHeader(data, path: path, at: at)
            case "OSMData":
                guard sawHeader else { throw OSMError(file: path, location: "blob at byte \(at)", reason: "data before the OSMHeader blob: not an OSM PBF file") }
                do {
                    try block(data, kinds: kinds, visit: visit)
                } catch let malformed as WireReader.Malformed {
                    throw OSMError(file: path, location: "blob at byte \(at)", reason: "a malformed primitive block: \(malformed.reason)")
                } catch let error as OSMError {
                    throw error
                } catch {
                    throw OSMError(file: path, location: "blob at byte \(at)", reason: "\(error)")
                }
            default:
                continue // unknown blob types are skipped, as the format asks
            }
        }
        guard sawHeader else { throw OSMError(file: path, reason: "no OSMHeader blob: not an OSM PBF file") }
    }

    /// The features a reader must understand: refused when unknown.
    private static func checkHeader(_ data: [UInt8], path: String, at: UInt64) throws(OSMError) {
        do {
            var r = WireReader(data)
            while let f = try r.field() {
                if f.number == 4, f.type == 2 {
                    let feature = r.string(try r.lengthDelimited())
                    guard ["OsmSchema-V0.6", "DenseNodes", "HistoricalInformation"].contains(feature) else {
                        throw OSMError(file: path, location: "blob at byte \(at)", reason: "the file requires \"\(feature)\", which Stroll does not read")
                    }
                } else {
                    try r.skip(f.type)
                }
            }
        } catch let error as OSMError {
            throw error
        } catch {
            throw OSMError(file: path, location: "blob at byte \(at)", reason: "a malformed OSMHeader: \(error)")
        }
    }

    /// One PrimitiveBlock: its string table, then each group's elements.
    private static func block(_ data: [UInt8], kinds: Set<OSMElement.Kind>, visit: (OSMElement) throws(OSMError) -> Void) throws {
        var r = WireReader(data)
        var strings: [String] = []
        var groups: [Range<Int>] = []
        var granularity: Int64 = 100, latOffset: Int64 = 0, lonOffset: Int64 = 0
        while let f = try r.field() {
            switch (f.number, f.type) {
            case (1, 2):
                var t = WireReader(data, range: try r.lengthDelimited())
                while let g = try t.field() {
                    if g.number == 1, g.type == 2 { strings.append(t.string(try t.lengthDelimited())) } else { try t.skip(g.type) }
                }
            case (2, 2): groups.append(try r.lengthDelimited())
            case (17, 0): granularity = Int64(truncatingIfNeeded: try r.varint())
            case (19, 0): latOffset = Int64(bitPattern: try r.varint())
            case (20, 0): lonOffset = Int64(bitPattern: try r.varint())
            default: try r.skip(f.type)
            }
        }
        guard granularity > 0, granularity <= 1_000_000 else { throw WireReader.Malformed(reason: "granularity \(granularity)") }
        func string(_ index: Int64) throws -> String {
            guard index >= 0, index < strings.count else { throw WireReader.Malformed(reason: "string index \(index) outside the block's table of \(strings.count)") }
            return strings[Int(index)]
        }
        func nano(_ value: Int64, _ offset: Int64) throws -> Int64 {
            let (scaled, o1) = value.multipliedReportingOverflow(by: granularity)
            let (sum, o2) = scaled.addingReportingOverflow(offset)
            guard !o1, !o2, abs(sum) <= 180_000_000_000 else { throw WireReader.Malformed(reason: "a coordinate out of range (\(value) x \(granularity) + \(offset) nanodegrees)") }
            return sum
        }
        func add(_ a: Int64, _ b: Int64, _ what: String) throws -> Int64 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            guard !overflow else { throw WireReader.Malformed(reason: "delta-coded \(what) overflow") }
            return sum
        }
        for group in groups {
            var g = WireReader(data, range: group)
            while let f = try g.field() {
                guard f.type == 2 else {
                    try g.skip(f.type)
                    continue
                }
                let range = try g.lengthDelimited()
                switch f.number {
                case 1 where kinds.contains(.node):
                    var e = OSMElement(kind: .node, id: 0)
                    var keys: [Int64] = [], vals: [Int64] = []
                    var m = WireReader(data, range: range)
                    var lat: Int64 = 0, lon: Int64 = 0
                    while let h = try m.field() {
                        switch (h.number, h.type) {
                        case (1, 0): e.id = try m.signed()
                        case (2, 2): keys = try WireReader.packed(data, try m.lengthDelimited(), zigzag: false)
                        case (3, 2): vals = try WireReader.packed(data, try m.lengthDelimited(), zigzag: false)
                        case (8, 0): lat = try m.signed()
                        case (9, 0): lon = try m.signed()
                        default: try m.skip(h.type)
                        }
                    }
                    guard keys.count == vals.count else { throw WireReader.Malformed(reason: "node \(e.id) has \(keys.count) keys and \(vals.count) values") }
                    e.tags = try zip(keys, vals).map { (try string($0), try string($1)) }
                    e.latitude = try nano(lat, latOffset)
                    e.longitude = try nano(lon, lonOffset)
                    try visit(e)
                case 2 where kinds.contains(.node):
                    var ids: [Int64] = [], lats: [Int64] = [], lons: [Int64] = [], keysVals: [Int64] = []
                    var m = WireReader(data, range: range)
                    while let h = try m.field() {
                        switch (h.number, h.type) {
                        case (1, 2): ids = try WireReader.packed(data, try m.lengthDelimited(), zigzag: true)
                        case (8, 2): lats = try WireReader.packed(data, try m.lengthDelimited(), zigzag: true)
                        case (9, 2): lons = try WireReader.packed(data, try m.lengthDelimited(), zigzag: true)
                        case (10, 2): keysVals = try WireReader.packed(data, try m.lengthDelimited(), zigzag: false)
                        default: try m.skip(h.type)
                        }
                    }
                    guard lats.count == ids.count, lons.count == ids.count else {
                        throw WireReader.Malformed(reason: "dense nodes with \(ids.count) ids, \(lats.count) latitudes and \(lons.count) longitudes")
                    }
                    var id: Int64 = 0, lat: Int64 = 0, lon: Int64 = 0, kv = 0
                    for k in ids.indices {
                        id = try add(id, ids[k], "node ids")
                        lat = try add(lat, lats[k], "latitudes")
                        lon = try add(lon, lons[k], "longitudes")
                        var e = OSMElement(kind: .node, id: id)
                        e.latitude = try nano(lat, latOffset)
                        e.longitude = try nano(lon, lonOffset)
                        while kv < keysVals.count, keysVals[kv] != 0 {
                            guard kv + 1 < keysVals.count else { throw WireReader.Malformed(reason: "dense node \(id) has a key without a value") }
                            e.tags.append((try string(keysVals[kv]), try string(keysVals[kv + 1])))
                            kv += 2
                        }
                        kv += 1
                        try visit(e)
                    }
                case 3 where kinds.contains(.way):
                    var e = OSMElement(kind: .way, id: 0)
                    var keys: [Int64] = [], vals: [Int64] = []
                    var m = WireReader(data, range: range)
                    while let h = try m.field() {
                        switch (h.number, h.type) {
                        case (1, 0): e.id = Int64(bitPattern: try m.varint())
                        case (2, 2): keys = try WireReader.packed(data, try m.lengthDelimited(), zigzag: false)
                        case (3, 2): vals = try WireReader.packed(data, try m.lengthDelimited(), zigzag: false)
                        case (8, 2):
                            var ref: Int64 = 0
                            for delta in try WireReader.packed(data, try m.lengthDelimited(), zigzag: true) {
                                ref = try add(ref, delta, "way node ids")
                                e.refs.append(ref)
                            }
                        default: try m.skip(h.type)
                        }
                    }
                    guard keys.count == vals.count else { throw WireReader.Malformed(reason: "way \(e.id) has \(keys.count) keys and \(vals.count) values") }
                    e.tags = try zip(keys, vals).map { (try string($0), try string($1)) }
                    try visit(e)
                case 4 where kinds.contains(.relation):
                    var e = OSMElement(kind: .relation, id: 0)
                    var keys: [Int64] = [], vals: [Int64] = [], roles: [Int64] = [], memids: [Int64] = [], types: [Int64] = []
                    var m = WireReader(data, range: range)
                    while let h = try m.field() {
                        switch (h.number, h.type) {
                        case (1, 0): e.id = Int64(bitPattern: try m.varint())
                        case (2, 2): keys = try WireReader.packed(data, try m.lengthDelimited(), zigzag: false)
                        case (3, 2): vals = try WireReader.packed(data, try m.lengthDelimited(), zigzag: false)
                        case (8, 2): roles = try WireReader.packed(data, try m.lengthDelimited(), zigzag: false)
                        case (9, 2): memids = try WireReader.packed(data, try m.lengthDelimited(), zigzag: true)
                        case (10, 2): types = try WireReader.packed(data, try m.lengthDelimited(), zigzag: false)
                        default: try m.skip(h.type)
                        }
                    }
                    guard keys.count == vals.count, roles.count == memids.count, types.count == memids.count else {
                        throw WireReader.Malformed(reason: "relation \(e.id) has mismatched keys, values, roles, members and types")
                    }
                    e.tags = try zip(keys, vals).map { (try string($0), try string($1)) }
                    var member: Int64 = 0
                    for k in memids.indices {
                        member = try add(member, memids[k], "relation member ids")
                        guard let kind = OSMElement.Kind(rawValue: Int(types[k])) else { throw WireReader.Malformed(reason: "relation \(e.id): member type \(types[k])") }
                        e.members.append(.init(kind: kind, id: member, role: try string(roles[k])))
                    }
                    try visit(e)
                default:
                    continue
                }
            }
        }
    }
}
