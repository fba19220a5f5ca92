import Foundation
import Traces

/// Reads `.osm` XML (OSM API 0.6, what `osmium cat -o x.osm` and JOSM write)
/// as a stream with the trace readers' XML scanner: bounded memory, exact
/// line numbers, no DTD (so no entity expansion and no external entities).
enum OSMXMLReader {
    static func read(_ path: String, kinds: Set<OSMElement.Kind>, visit: (OSMElement) throws(OSMError) -> Void) throws(OSMError) {
        var scanner: XMLScanner
        do {
            scanner = try XMLScanner(source: ByteSource(path: path))
        } catch {
            throw OSMError(file: path, location: error.line > 0 ? "line \(error.line)" : "", reason: error.reason, unreadable: error.kind == .unreadable)
        }
        var current: OSMElement?
        var currentLine = 0
        var sawRoot = false
        func text(_ name: String) -> String? { scanner.attribute(name).map { String(decoding: $0, as: UTF8.self) } }
        func fail(_ reason: String) -> OSMError { OSMError(file: path, location: "line \(scanner.line)", reason: reason) }
        func integer(_ name: String) throws(OSMError) -> Int64 {
            guard let t = text(name), let v = Int64(t) else { throw fail("<\(scanner.name)> without a valid \(name)") }
            return v
        }
        func nanodegrees(_ name: String, limit: Double) throws(OSMError) -> Int64 {
            guard let t = text(name), let v = Double(t), v.isFinite, abs(v) <= limit else { throw fail("<node> with \(name)=\"\(text(name) ?? "")\": not a coordinate") }
            return Int64((v * 1e9).rounded())
        }
        while true {
            let token: XMLScanner.Token
            do {
                token = try scanner.next()
            } catch {
                throw OSMError(file: path, location: "line \(error.line)", reason: error.reason)
            }
            switch token {
            case .endOfDocument:
                guard sawRoot else { throw OSMError(file: path, reason: "no <osm> element: not an OpenStreetMap XML file") }
                return
            case .start:
                switch scanner.name {
                case "osm", "osmChange":
                    guard scanner.name == "osm" else { throw fail("an osmChange file is a diff, not an extract") }
                    sawRoot = true
                case "node":
                    var e = OSMElement(kind: .node, id: try integer("id"))
                    e.latitude = try nanodegrees("lat", limit: 90)
                    e.longitude = try nanodegrees("lon", limit: 180)
                    current = e
                    currentLine = scanner.line
                case "way":
                    current = OSMElement(kind: .way, id: try integer("id"))
                    currentLine = scanner.line
                case "relation":
                    current = OSMElement(kind: .relation, id: try integer("id"))
                    currentLine = scanner.line
                case "tag":
                    guard let k = text("k"), let v = text("v") else { throw fail("<tag> without k and v") }
                    current?.tags.append((k, v))
                case "nd":
                    current?.refs.append(try integer("ref"))
                case "member":
                    let type = text("type") ?? ""
                    guard let kind: OSMElement.Kind = ["node": .node, "way": .way, "relation": .relation][type] else { throw fail("<member> of type \"\(type)\"") }
                    current?.members.append(.init(kind: kind, id: try integer("ref"), role: text("role") ?? ""))
                default:
                    break
                }
            case .end:
                if ["node", "way", "relation"].contains(scanner.name), let e = current {
                    current = nil
                    if kinds.contains(e.kind) {
                        do {
                            try visit(e)
                        } catch {
                            var located = error
                            if located.location.isEmpty { located.location = "line \(currentLine)" }
                            throw located
                        }
                    }
                }
            }
        }
    }
}
