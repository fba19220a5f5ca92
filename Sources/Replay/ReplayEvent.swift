import Foundation
import LocationSimulation
import Map
import Proximity
import Traces

/// What the map looked like after an update: what a `map` event reports.
public struct MapSnapshot: Equatable, Sendable {
    public var region: MapRegion?
    /// The pins drawn, as indices into ``pins`` (their ids), in the order they were added.
    public private(set) var visibleRows: [UInt32]
    /// The ids the visible rows index.
    public private(set) var pins: RankedPlaces
    public var selected: String?
    /// With clustering: the zoom level drawn, and the clusters with their members' ids.
    public var zoom: Int?
    public var clusters: [(cluster: MapCluster, members: [String])]?

    /// The pins drawn, in the order they were added.
    public var visible: [String] {
        get { visibleRows.map { pins.ids[Int($0)] } }
        set {
            pins = RankedPlaces(ids: newValue, names: newValue)
            visibleRows = newValue.indices.map { UInt32(truncatingIfNeeded: $0) }
        }
    }

    public init(_ map: MapModel) {
        region = map.region
        let visible = map.visible
        pins = RankedPlaces(ids: visible, names: visible)
        visibleRows = visible.indices.map { UInt32(truncatingIfNeeded: $0) }
        selected = map.selected
        if map.clustering != nil {
            zoom = map.clusterZoom
            clusters = map.clusters.map { ($0, map.members(ofCluster: $0.id) ?? []) }
        }
    }

    /// An unclustered map's snapshot whose visible pins are `rows` of `pins`
    /// (``MapModel/visibleIndices(into:)`` with a table of the map's annotations).
    init(region: MapRegion?, pins: RankedPlaces, visibleRows: [UInt32], selected: String?) {
        self.region = region
        self.pins = pins
        self.visibleRows = visibleRows
        self.selected = selected
    }

    public static func == (a: MapSnapshot, b: MapSnapshot) -> Bool {
        a.region == b.region && a.selected == b.selected && a.zoom == b.zoom
            && (a.pins === b.pins ? a.visibleRows == b.visibleRows : a.visible == b.visible)
            && a.clusters?.map(\.cluster) == b.clusters?.map(\.cluster) && a.clusters?.map(\.members) == b.clusters?.map(\.members)
    }
}

/// The counters of a finished replay: the `summary` event.
public struct ReplaySummary: Equatable, Sendable {
    /// Points read from the trace, accepted or not.
    public var read: Int
    /// Rejected points by reason.
    public var rejected: [String: Int]
    public var counts: ReplayCounts
    /// Order changes: the rankings with `changed` true, each group's first among them (``Replay/rankingChanges``).
    public var rankingChanges: Int
    public var placesRejected: Int
}

/// One event of a replay, in the order `stroll replay --format jsonl` prints
/// them (the command-line contract); `t` is seconds since the replay began.
public enum ReplayEvent: Equatable, Sendable {
    case location(Location, t: Double)
    case filtered(Location, reason: FilterReason, distance: Double, t: Double)
    case ranking(RankingUpdate, group: String, t: Double)
    case map(MapSnapshot, t: Double)
    /// `initial` marks the state found when monitoring started.
    case region(id: String, entered: Bool, initial: Bool, t: Double)
    case pause(t: Double)
    case resume(t: Double)
    case error(LocationError, t: Double)
    /// With ``ReplayConfiguration/visits``: a visit's arrival (no departure
    /// yet) or its departure, after the fix that shows it (docs/Visits.md).
    case visit(Visit, t: Double)
    case summary(ReplaySummary)

    /// Seconds since the replay began; nil for the summary.
    public var t: Double? {
        switch self {
        case .location(_, let t), .filtered(_, _, _, let t), .ranking(_, _, let t), .map(_, let t), .region(_, _, _, let t),
             .pause(let t), .resume(let t), .error(_, let t), .visit(_, let t):
            return t
        case .summary:
            return nil
        }
    }
}

extension ReplayEvent {
    /// `t` as the lines write it: to the microsecond.
    static func microseconds(_ t: Double) -> Double { (t * 1_000_000).rounded() / 1_000_000 }
    private static func rounded(_ t: Double) -> JSON { .number(microseconds(t)) }

    /// The event as one JSON object, keys in the contract's order.
    public var json: JSON {
        switch self {
        case .location(let l, let t):
            let truth: [(String, JSON)] = l.appliedError.map {
                [("errorEast", .number($0.east)), ("errorNorth", .number($0.north))] + ($0.multipath ? [("multipath", .bool(true))] : [])
            } ?? []
            return .object([("type", .string("location")), ("t", Self.rounded(t)), ("timestamp", .string(ISO8601Time.format(l.timestamp))),
                            ("lat", .number(l.coordinate.latitude)), ("lon", .number(l.coordinate.longitude)),
                            ("horizontalAccuracy", .number(l.horizontalAccuracy)), ("altitude", .number(l.altitude)),
                            ("verticalAccuracy", .number(l.verticalAccuracy)), ("course", .number(l.course)), ("speed", .number(l.speed))] + truth)
        case .filtered(let l, let reason, let distance, let t):
            return .object([("type", .string("filtered")), ("t", Self.rounded(t)), ("lat", .number(l.coordinate.latitude)),
                            ("lon", .number(l.coordinate.longitude)), ("reason", .string(reason.rawValue)), ("distance", .number(distance))])
        case .ranking(let u, let group, let t):
            return .object([("type", .string("ranking")), ("t", Self.rounded(t)), ("group", .string(group)),
                            ("order", .array(u.order.map { .string($0) })), ("names", .array(u.names.map { .string($0) })),
                            ("distances", .array(u.distances.map { .number($0) })),
                            ("moves", .array(u.moves.map { .array([.int($0.from), .int($0.to)]) })),
                            ("inserted", .array(u.inserted.map { .string($0) })), ("deleted", .array(u.deleted.map { .string($0) })),
                            ("nearest", .optional(u.nearest)), ("changed", .bool(u.changed))])
        case .map(let m, let t):
            let region: JSON = m.region.map { r in
                .object([("center", .object([("lat", .number(r.center.latitude)), ("lon", .number(r.center.longitude))])),
                         ("span", .object([("latDelta", .number(r.latitudeDelta)), ("lonDelta", .number(r.longitudeDelta))]))])
            } ?? .null
            var fields: [(String, JSON)] = [("type", .string("map")), ("t", Self.rounded(t)), ("region", region), ("visible", .array(m.visible.map { .string($0) })),
                                            ("selected", .optional(m.selected))]
            if let clusters = m.clusters {
                fields.append(("zoom", m.zoom.map { .int($0) } ?? .null))
                fields.append(("clusters", .array(clusters.map { c, members in
                    .object([("id", .string(c.id)), ("group", .string(c.clusteringIdentifier)), ("count", .int(c.count)),
                             ("lat", .number(c.coordinate.latitude)), ("lon", .number(c.coordinate.longitude)),
                             ("expansionZoom", .int(c.expansionZoom)), ("members", .array(members.map { .string($0) }))])
                })))
            }
            return .object(fields)
        case .region(let id, let entered, let initial, let t):
            var fields: [(String, JSON)] = [("type", .string("region")), ("t", Self.rounded(t)), ("id", .string(id)), ("event", .string(entered ? "enter" : "exit"))]
            if initial { fields.append(("initial", .bool(true))) }
            return .object(fields)
        case .pause(let t):
            return .object([("type", .string("pause")), ("t", Self.rounded(t))])
        case .resume(let t):
            return .object([("type", .string("resume")), ("t", Self.rounded(t))])
        case .error(let e, let t):
            var fields: [(String, JSON)] = [("type", .string("error")), ("t", Self.rounded(t)), ("code", .string(e.code.rawValue)), ("message", .string(e.message))]
            if let file = e.file { fields.append(("file", .string(file))) }
            if let line = e.line { fields.append(("line", .int(line))) }
            return .object(fields)
        case .visit(let v, let t):
            return .object([("type", .string("visit")), ("t", Self.rounded(t)), ("lat", .number(v.coordinate.latitude)),
                            ("lon", .number(v.coordinate.longitude)), ("arrival", .string(ISO8601Time.format(v.arrival))),
                            ("departure", v.departure.map { .string(ISO8601Time.format($0)) } ?? .null),
                            ("horizontalAccuracy", .number(v.horizontalAccuracy))])
        case .summary(let s):
            return .object([("type", .string("summary")), ("read", .int(s.read)),
                            ("rejected", .object(s.rejected.keys.sorted().map { ($0, .int(s.rejected[$0] ?? 0)) })),
                            ("delivered", .int(s.counts.delivered)), ("filtered", .int(s.counts.filteredTotal)), ("rankingChanges", .int(s.rankingChanges)),
                            ("generated", .int(s.counts.generated)), ("interpolated", .int(s.counts.interpolated)), ("dropouts", .int(s.counts.dropouts)),
                            ("outages", .int(s.counts.outages)), ("outageFixes", .int(s.counts.outageFixes)),
                            ("paused", .int(s.counts.paused)), ("placesRejected", .int(s.placesRejected))])
        }
    }

    /// The JSON Lines line `stroll replay --format jsonl` prints for this event.
    public var jsonLine: String {
        var out = JSONBytes(capacity: 512)
        writeJSONLine(to: &out)
        return out.text
    }
}
