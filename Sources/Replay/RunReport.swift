import Foundation
import Geodesy
import LocationSimulation
import Proximity
import Traces

/// What a replay produced, kept for the file outputs (GeoJSON, GPX).
public struct RunReport {
    public let trace: Trace
    /// The ranked groups in the replay's order (``Replay/groups``, the order
    /// `stroll replay` prints their rankings in): the order the HTML page and
    /// the live view list them in. A group first ranked by an event
    /// ``record(_:names:history:orderChanges:)`` keeps is added at the end.
    public var groups: [String]
    public var delivered: [(location: Location, t: Double)] = []
    public var rankings: [String: RankingUpdate] = [:]
    /// Every ranking by group, one per delivered fix (kept only for the HTML page).
    public var history: [String: [RankingUpdate]] = [:]
    /// Every ranking whose order changed, with its time (kept only for the GeoPackage).
    public var orderChanges: [(t: Double, group: String, update: RankingUpdate)] = []
    public var nearestChanges: [(group: String, id: String, name: String, at: Coordinate, t: Double)] = []
    public var selected: String?

    /// The report of a replay of `trace` ranking `groups`, in that order.
    public init(trace: Trace, groups: [String] = []) {
        self.trace = trace
        self.groups = groups
    }

    /// Keeps what the file outputs need from one event of a replay: the
    /// delivered fixes, each group's latest ranking and where its nearest
    /// place changed; with `history` every ranking (the HTML page), with
    /// `orderChanges` every ranking whose order changed (the GeoPackage).
    /// `names` gives a place's name by id.
    public mutating func record(_ event: ReplayEvent, names: [String: String], history keepHistory: Bool = false, orderChanges keepChanges: Bool = false) {
        switch event {
        case .location(let l, let t):
            delivered.append((l, t))
        case .ranking(let update, let group, let t):
            if let previous = rankings[group], previous.nearest != update.nearest, let n = update.nearest, let l = delivered.last {
                nearestChanges.append((group, n, names[n] ?? n, l.location.coordinate, t))
            }
            if rankings.updateValue(update, forKey: group) == nil, !groups.contains(group) { groups.append(group) }
            if keepHistory { history[group, default: []].append(update) }
            if keepChanges, update.changed { orderChanges.append((t, group, update)) }
        default:
            break
        }
    }

    /// A FeatureCollection: the trace, the delivered fixes, the places with their final rank, and where the nearest place changed.
    public func geoJSON(places: [Place]) -> JSON {
        func point(_ c: Coordinate) -> JSON {
            .object([("type", .string("Point")), ("coordinates", .array([.number(c.longitude), .number(c.latitude)]))])
        }
        var features: [JSON] = []
        for (k, segment) in trace.replaySegments.enumerated() where segment.fixes.count >= 2 {
            features.append(.object([
                ("type", .string("Feature")),
                ("geometry", .object([("type", .string("LineString")),
                                      ("coordinates", .array(segment.fixes.map { .array([.number($0.coordinate.longitude), .number($0.coordinate.latitude)]) }))])),
                ("properties", .object([("kind", .string("trace")), ("segment", .int(k)), ("name", .optional(trace.name))])),
            ]))
        }
        for (l, t) in delivered {
            features.append(.object([
                ("type", .string("Feature")), ("geometry", point(l.coordinate)),
                ("properties", .object([("kind", .string("fix")), ("t", .number(t)), ("timestamp", .string(ISO8601Time.format(l.timestamp))),
                                        ("horizontalAccuracy", .number(l.horizontalAccuracy)), ("course", .number(l.course)), ("speed", .number(l.speed))])),
            ]))
        }
        for p in places {
            let ranking = rankings[p.group]
            let rank = ranking?.order.firstIndex(of: p.id)
            features.append(.object([
                ("type", .string("Feature")), ("geometry", point(p.coordinate)),
                ("properties", .object([("kind", .string("place")), ("id", .string(p.id)), ("name", .string(p.name)), ("subtitle", .optional(p.subtitle)),
                                        ("group", .string(p.group)), ("rank", rank.map { .int($0 + 1) } ?? .null),
                                        ("distance", rank.flatMap { ranking?.distances[$0] }.map { .number($0) } ?? .null),
                                        ("selected", .bool(p.id == selected))])),
            ]))
        }
        for change in nearestChanges {
            features.append(.object([
                ("type", .string("Feature")), ("geometry", point(change.at)),
                ("properties", .object([("kind", .string("nearest-change")), ("group", .string(change.group)), ("nearest", .string(change.id)),
                                        ("name", .string(change.name)), ("t", .number(change.t))])),
            ]))
        }
        return .object([("type", .string("FeatureCollection")), ("features", .array(features))])
    }

    /// The delivered fixes as a one-segment trace.
    public func deliveredTrace() -> Trace {
        let fixes = delivered.map { l, _ in
            Fix(coordinate: l.coordinate, time: l.timestamp, elevation: l.verticalAccuracy > 0 ? l.altitude : nil,
                horizontalAccuracy: l.horizontalAccuracy, verticalAccuracy: l.verticalAccuracy > 0 ? l.verticalAccuracy : nil,
                speed: l.speed >= 0 ? l.speed : nil, course: l.course >= 0 ? l.course : nil)
        }
        return Trace(format: .gpx, name: "Delivered fixes: \(trace.name ?? "replay")",
                     description: "The fixes Stroll's simulated location manager delivered", tracks: [Track(name: trace.name, segments: [Segment(fixes: fixes)])])
    }
}
