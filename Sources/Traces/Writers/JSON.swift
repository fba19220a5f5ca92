/// A JSON value with ordered object keys, so output is stable and readable:
/// the one encoder behind every JSON line and file Stroll writes.
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (l: JSON, r: JSON) -> Bool { l.text == r.text }

    public static func optional(_ v: Double?) -> JSON { v.map { .number($0) } ?? .null }
    public static func optional(_ v: String?) -> JSON { v.map { .string($0) } ?? .null }

    /// Compact JSON text; non-finite numbers become null.
    public var text: String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the compact text's UTF-8 to `out` (one buffer of bytes: far
    /// cheaper than growing a String piece by piece, measured on the replay's events).
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .int(let i): out += String(i).utf8
        case .number(let d):
            if !d.isFinite {
                out += "null".utf8
            } else if d == d.rounded(), abs(d) < 1e15 {
                out += String(Int(d)).utf8
            } else {
                let written = withUnsafeTemporaryAllocation(byteCount: ShortestDouble.capacity, alignment: 8) { buffer -> Bool in
                    guard let n = ShortestDouble.write(d, into: buffer) else { return false }
                    out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                    return true
                }
                if !written { out += d.description.utf8 }
            }
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped,
    /// everything else as its UTF-8.
    public static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case UInt8(ascii: "\n"): out += #"\n"#.utf8
            case UInt8(ascii: "\r"): out += #"\r"#.utf8
            case UInt8(ascii: "\t"): out += #"\t"#.utf8
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += #"\u00"#.utf8
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
