import Foundation
import Geodesy
import LocationSimulation
import Map
import Proximity
import Traces

/// Everything a replay is asked to do besides its trace and places: what the
/// options of `stroll replay` set.
public struct ReplayConfiguration: Sendable {
    public var settings = LocationSettings()
    public var replay = ReplayOptions()
    public var sensor = SensorOptions()
    public var regions: [MonitoredRegion] = []
    /// The groups ranked, in order; nil for every group of the places.
    public var groups: [String]?
    public var sortMode: SortMode = .distance
    /// Places farther than this (metres) leave the list, and come back as inserts.
    public var within: Double?
    /// The map region's size in metres, centred on the first delivered fix.
    public var regionSpan = 1000.0
    /// Whether the map region follows every delivered fix.
    public var follow = false
    /// A place id, else a name within the ranked groups, whose pin is selected
    /// (and the map recentred on it) at the first ranking that lists it.
    public var select: String?
    /// Pins of one group drawn as clusters (the group is the clustering identifier); nil draws every pin.
    public var clustering: ClusterSettings?
    /// Visits detected in the delivered fixes by these thresholds (`VisitDetector`); nil detects none.
    public var visits: VisitSettings?
    /// Whether ``Replay/golden`` records the order changes (each change keeps
    /// its whole order); `stroll replay` records them only for `--record` and `--verify`.
    public var recordsGolden = true

    public init() {}
}

/// Why a replay could not be set up.
public enum ReplaySetupError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownGroup(String, available: [String])
    /// `select` matched no place, or several.
    case selection(String)
    case regions(String)
    case clustering(String)

    public var description: String {
        switch self {
        case .unknownGroup(let g, let available): return "unknown group \"\(g)\"; the groups are: \(available.joined(separator: ", "))"
        case .selection(let message), .regions(let message), .clustering(let message): return message
        }
    }
}

/// The pipeline behind `stroll replay`: the location simulator, one ranking
/// per group of places on every delivered fix, and the map model. A test
/// pulls exactly the events the command prints (``ReplayEvent/jsonLine``).
///
/// `next()` replays in virtual time; ``events(clock:)`` paces the same events
/// on a clock. After the last event comes one `summary`.
public struct Replay {
    public let trace: Trace
    /// The places of the ranked groups.
    public let places: [Place]
    public let groups: [String]
    public let configuration: ReplayConfiguration
    /// The selection's place id, resolved from ``ReplayConfiguration/select``.
    public let selectID: String?
    /// Time of the first fix, seconds since 1970, and of the last.
    public let startTime: Double
    public let endTime: Double
    /// Notes about the trace and the replay (no times, gaps, ...).
    public let notes: [String]
    /// The order changes so far, as a golden timeline records them (empty
    /// unless ``ReplayConfiguration/recordsGolden``).
    public private(set) var golden: GoldenTimeline
    public private(set) var map = MapModel()
    /// The order changes so far: the rankings with `changed` true, each
    /// group's first ranking among them (the list appearing is a change, as
    /// a table view's first load inserts every row). The `summary` event,
    /// `--verify`'s message and the golden timeline count the same.
    public private(set) var rankingChanges = 0
    /// Every group's latest ranking.
    public private(set) var rankings: [String: RankingUpdate] = [:]
    /// Whether the replay stopped at bad input in the trace.
    public private(set) var failed = false

    /// Where the replay's time goes, when set (``ReplayTimings``): left nil, nothing is measured.
    public var timings: ReplayTimings?
    private var simulator: LocationSimulator
    private var engines: [(group: String, engine: ProximityEngine)]
    private let placesRejected: Int
    private var pendingSelect: String?
    private var lastMap: MapSnapshot?
    /// The map's annotations' ids by index, and buffers for its visible pins and their changes.
    private var pinTable = RankedPlaces(ids: [], names: [])
    private var mapRows = TakingTurns<UInt32>()
    private var mapDelta = VisibleDelta()
    private var pending: [ReplayEvent] = []
    private var pendingIndex = 0
    private var finished = false
    private var visits: VisitDetector?

    public init(trace: Trace, places placeSet: PlaceSet, configuration: ReplayConfiguration = ReplayConfiguration(),
                about: String? = nil) throws(ReplaySetupError) {
        self.trace = trace
        self.configuration = configuration
        let groups = configuration.groups ?? placeSet.groups
        self.groups = groups
        let active: [Place]
        do {
            active = try placeSet.places(inGroups: groups)
        } catch {
            throw .unknownGroup(error.group, available: error.groups)
        }
        places = active
        placesRejected = placeSet.rejected.count
        selectID = try configuration.select.map { wanted throws(ReplaySetupError) in try Self.resolve(wanted, among: active) }
        pendingSelect = selectID
        do {
            simulator = try LocationSimulator(trace: trace, settings: configuration.settings, replay: configuration.replay,
                                              sensor: configuration.sensor, regions: configuration.regions)
        } catch {
            throw .regions(error.description)
        }
        startTime = simulator.startTime
        endTime = simulator.endTime
        notes = trace.notes + simulator.notes
        engines = groups.map { g in
            var engine = ProximityEngine(places: placeSet.places.filter { $0.group == g }, sortMode: configuration.sortMode)
            engine.maximumRadius = configuration.within
            return (g, engine)
        }
        map.trackingMode = configuration.follow ? .follow : .none
        _ = map.add(places.map { Annotation(id: $0.id, coordinate: $0.coordinate, title: $0.name, subtitle: $0.subtitle,
                                            clusteringIdentifier: configuration.clustering == nil ? nil : $0.group) })
        if let clustering = configuration.clustering, case .failure(let error) = map.setClustering(clustering) { throw .clustering(error.description) }
        pinTable = RankedPlaces(ids: map.annotations.map(\.id), names: map.annotations.map(\.title))
        golden = GoldenTimeline(about: about ?? "replay, groups \(groups.joined(separator: ", "))")
        visits = configuration.visits.map { VisitDetector(settings: $0) }
    }

    /// A place id exactly, else a name exactly among `places`; no match or several is an error listing the candidates.
    public static func resolve(_ wanted: String, among places: [Place]) throws(ReplaySetupError) -> String {
        if let p = places.first(where: { $0.id == wanted }) { return p.id }
        let named = places.filter { $0.name == wanted }
        if named.count == 1 { return named[0].id }
        if named.isEmpty {
            let close = places.filter { $0.name.localizedCaseInsensitiveContains(wanted) || $0.id.localizedCaseInsensitiveContains(wanted) }
            let hint = close.isEmpty ? "" : "; similar: " + close.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
            throw .selection("--select \"\(wanted)\" matches no place id or name in the active groups\(hint)")
        }
        throw .selection("--select \"\(wanted)\" matches \(named.count) places; use an id: " + named.map { "\($0.id) (\($0.name))" }.joined(separator: ", "))
    }

    /// The simulator's counters so far.
    public var counts: ReplayCounts { simulator.counts }

    /// The next event in virtual time; nil after the summary.
    public mutating func next() -> ReplayEvent? {
        while true {
            if let event = takePending() { return event }
            guard !finished else { return nil }
            let event: LocationEvent?
            if timings != nil {
                let t0 = ReplayTimings.now()
                event = simulator.next()
                timings?.simulator &+= ReplayTimings.now() &- t0
            } else {
                event = simulator.next()
            }
            // Most fixes are held back by the filters: each is one event, returned as it is.
            if case .filtered(let l, let reason, let distance)? = event {
                return .filtered(l, reason: reason, distance: distance, t: l.timestamp - startTime)
            }
            handle(event, t: event.map { $0.timestamp - startTime } ?? 0)
        }
    }

    /// Every event to the end, in virtual time.
    public mutating func run() -> [ReplayEvent] {
        var all: [ReplayEvent] = []
        while let e = next() { all.append(e) }
        return all
    }

    /// The same events paced by `clock`; `t` is the pacer's time since the replay began.
    public func events<C: ReplayClock>(clock: C) -> ReplayEvents<C> { ReplayEvents(replay: self, clock: clock) }

    /// The next event, once `pacer` says it is due; `t` is the pacer's time since
    /// the replay began. nil after the summary.
    public mutating func next<P: ReplayPacer>(pacedBy pacer: inout P) async throws -> ReplayEvent? {
        while true {
            if let event = takePending() { return event }
            guard !finished else { return nil }
            let event = simulator.next()
            if let event { try await pacer.wait(until: event.timestamp) }
            handle(event, t: event.map { pacer.elapsed(at: $0.timestamp) } ?? 0)
        }
    }

    /// The next of the events the last simulator event gave, if any is left.
    private mutating func takePending() -> ReplayEvent? {
        guard pendingIndex < pending.count else { return nil }
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }

    private mutating func finish() {
        guard !finished else { return }
        finished = true
        var rejected: [String: Int] = [:]
        for r in trace.rejected { rejected[r.category, default: 0] += 1 }
        let read = trace.replaySegments.map(\.fixes.count).reduce(0, +) + trace.rejected.count
        pending.append(.summary(ReplaySummary(read: read, rejected: rejected, counts: simulator.counts,
                                              rankingChanges: rankingChanges, placesRejected: placesRejected)))
    }

    /// The events one simulator event gives (the summary when the simulator has ended).
    private mutating func handle(_ event: LocationEvent?, t: Double) {
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
        guard let event else { return finish() }
        switch event {
        case .location(let l):
            let measuring = timings != nil
            var t0 = measuring ? ReplayTimings.now() : 0
            pending.append(.location(l, t: t))
            if map.clustering == nil {
                map.updateUserLocation(l.coordinate, delta: &mapDelta)
            } else {
                _ = map.updateUserLocation(l.coordinate)
            }
            if map.region == nil {
                _ = map.setRegion(MapRegion(center: l.coordinate, latitudinalMeters: configuration.regionSpan, longitudinalMeters: configuration.regionSpan))
            }
            if measuring { timings?.lap(&t0, .map) }
            let frame = GeodesicDistanceFrame(origin: l.coordinate)
            for k in engines.indices {
                let group = engines[k].group
                let update = engines[k].engine.update(from: frame)
                if measuring { timings?.lap(&t0, .rankings) }
                if update.changed { rankingChanges += 1 }
                rankings[group] = update
                if configuration.recordsGolden { golden.record(update, group: group, t: t) }
                pending.append(.ranking(update, group: group, t: t))
                if measuring { timings?.lap(&t0, .events) }
            }
            if let id = pendingSelect, engines.contains(where: { $0.engine.places.contains { $0.id == id } }) {
                pendingSelect = nil
                if case .success = map.select(id), let pin = map.annotation(id) { _ = map.setCenter(pin.coordinate) }
            }
            if map.clustering == nil {
                // The visible pins by index, into buffers that take turns: a snapshot only when something moved.
                var rows = mapRows.take()
                _ = map.visibleIndices(into: &rows)
                if let last = lastMap, last.pins === pinTable, last.visibleRows == rows, last.region == map.region, last.selected == map.selected {
                    mapRows.giveBack(rows)
                } else {
                    let snapshot = MapSnapshot(region: map.region, pins: pinTable, visibleRows: rows, selected: map.selected)
                    pending.append(.map(snapshot, t: t))
                    lastMap = snapshot
                    mapRows.handOut(rows)
                }
            } else {
                let snapshot = MapSnapshot(map)
                if snapshot != lastMap {
                    pending.append(.map(snapshot, t: t))
                    lastMap = snapshot
                }
            }
            if measuring { timings?.lap(&t0, .map) }
            if visits != nil, let reported = visits?.add(l) {
                for visit in reported { pending.append(.visit(visit, t: t)) }
            }
        case .filtered(let l, let reason, let distance):
            pending.append(.filtered(l, reason: reason, distance: distance, t: t))
        case .regionState(let id, let inside, _):
            if inside { pending.append(.region(id: id, entered: true, initial: true, t: t)) }
        case .regionEntered(let id, _):
            pending.append(.region(id: id, entered: true, initial: false, t: t))
        case .regionExited(let id, _):
            pending.append(.region(id: id, entered: false, initial: false, t: t))
        case .paused:
            pending.append(.pause(t: t))
        case .resumed:
            pending.append(.resume(t: t))
        case .error(let e, _):
            pending.append(.error(e, t: t))
            if e.code == .badInput {
                failed = true
                finish()
            }
        }
    }
}

/// A replay's events paced by a clock, as an `AsyncSequence`.
public struct ReplayEvents<C: ReplayClock>: AsyncSequence {
    public typealias Element = ReplayEvent
    let replay: Replay
    let clock: C

    /// Runs the replay and waits on the clock for each event.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var replay: Replay
        var pacer: C.Pacer

        public mutating func next() async throws -> ReplayEvent? {
            try await replay.next(pacedBy: &pacer)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(replay: replay, pacer: clock.makePacer(start: replay.startTime))
    }
}
