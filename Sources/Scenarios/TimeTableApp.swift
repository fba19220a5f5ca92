import Foundation
import Geodesy
import Map
import Proximity

/// One event of the timetable (`{module, type, location}`), the location a lecture theatre id.
public struct TimetableEvent: Codable, Equatable, Sendable {
    public var module: String
    public var type: String
    public var location: String
}

/// An hour of a day (`{time, events}`).
public struct TimetableHour: Codable, Equatable, Sendable {
    public var time: String
    public var events: [TimetableEvent]
}

/// `TimeTable.json`: `{year, semester, timetable: [5 day arrays of hours]}`.
public struct Timetable: Codable, Equatable, Sendable {
    public var year: String
    public var semester: Int
    public var timetable: [[TimetableHour]]
}

/// A module's details (`Semester1Modules.json`: `{CODE: {moduleCode, moduleTitle, ...}}`).
public struct Module: Codable, Equatable, Sendable {
    public var moduleCode: String
    public var moduleTitle: String
    public var moduleLeader: String?
    public var credits: Int?
}

/// The data files could not be read.
public struct ScenarioDataError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var reason: String
    public var description: String { "\(file): \(reason)" }
}

/// What the TimeTable2012 app shows changing.
public enum TimeTableChange: Equatable, Sendable {
    case map(MapChange)
    /// A module's detail: code and title.
    case moduleDetail(code: String, title: String)
    /// The day's remaining lecture theatres sorted by distance from the walker.
    case theatres(RankingUpdate)
}

/// The TimeTable2012 assignment's app, headless: days of events filtered to
/// the chosen modules, a module's detail with its lecture theatre's pin
/// centred and selected, and (beyond the original app) the day's remaining
/// lecture theatres sorted by distance as the walker moves.
public struct TimeTableApp {
    public static let days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

    public let timetable: Timetable
    public let modules: [String: Module]
    public let theatres: [Place]
    /// Chosen modules: all at first (the Customise view toggles them).
    public private(set) var selectedModules: Set<String>
    public private(set) var map = MapModel()
    /// Street scale around a theatre.
    public var regionSpan = 500.0
    private var engine: ProximityEngine?

    public init(timetable: Timetable, modules: [String: Module], theatres: [Place]) {
        self.timetable = timetable
        self.modules = modules
        self.theatres = theatres
        selectedModules = Set(modules.keys)
        _ = map.add(theatres.map { Annotation(id: $0.id, coordinate: $0.coordinate, title: $0.name, subtitle: $0.subtitle) })
    }

    /// Loads the two JSON files in their original shapes.
    public static func load(timetable: String, modules: String, theatres: [Place]) throws(ScenarioDataError) -> TimeTableApp {
        func decode<T: Decodable>(_ type: T.Type, _ path: String) throws(ScenarioDataError) -> T {
            guard let data = FileManager.default.contents(atPath: path) else { throw ScenarioDataError(file: path, reason: "cannot be read") }
            do {
                return try JSONDecoder().decode(T.self, from: data)
            } catch {
                throw ScenarioDataError(file: path, reason: "not in the expected shape: \(error)")
            }
        }
        let t = try decode(Timetable.self, timetable)
        guard t.timetable.count == 5 else { throw ScenarioDataError(file: timetable, reason: "expected 5 days, found \(t.timetable.count)") }
        return TimeTableApp(timetable: t, modules: try decode([String: Module].self, modules), theatres: theatres)
    }

    /// The Customise view: a tap toggles a module's check mark.
    public mutating func toggle(module code: String) {
        if selectedModules.contains(code) { selectedModules.remove(code) } else { selectedModules.insert(code) }
    }

    /// A day's hours with only the chosen modules' events; an hour left empty disappears.
    /// An empty result means the day is clear.
    public func events(onDay day: Int) -> [TimetableHour] {
        guard timetable.timetable.indices.contains(day) else { return [] }
        return timetable.timetable[day].compactMap { hour in
            let kept = hour.events.filter { selectedModules.contains($0.module) }
            return kept.isEmpty ? nil : TimetableHour(time: hour.time, events: kept)
        }
    }

    public func isClear(day: Int) -> Bool { events(onDay: day).isEmpty }

    /// A module's detail: the map centres on its lecture theatre's pin (keeping the zoom) and selects it.
    public mutating func showModule(_ code: String, onDay day: Int) -> Result<[TimeTableChange], MapError> {
        guard let module = modules[code] else { return .failure(.notOnMap(code)) }
        // The module's event on that day, else its first event in the week.
        let onDay = timetable.timetable.indices.contains(day) ? timetable.timetable[day].flatMap(\.events).first { $0.module == code } : nil
        let anyDay = timetable.timetable.flatMap { $0 }.flatMap(\.events).first { $0.module == code }
        guard let event = onDay ?? anyDay, let pin = map.annotation(event.location) else {
            return .failure(.notOnMap(code))
        }
        var changes: [TimeTableChange] = [.moduleDetail(code: module.moduleCode, title: module.moduleTitle)]
        if map.region == nil {
            changes += map.setRegion(MapRegion(center: pin.coordinate, latitudinalMeters: regionSpan, longitudinalMeters: regionSpan)).map(TimeTableChange.map)
        } else {
            changes += map.setCenter(pin.coordinate).map(TimeTableChange.map)
        }
        switch map.select(pin.id) {
        case .success(let selection): changes += selection.map(TimeTableChange.map)
        case .failure(let e): return .failure(e)
        }
        return .success(changes)
    }

    /// The lecture theatres of the day's events from `time` on ("HH:MM"), for the chosen modules.
    public func remainingTheatres(onDay day: Int, from time: String) -> [Place] {
        let ids = events(onDay: day).filter { $0.time >= time }.flatMap(\.events).map(\.location)
        var seen = Set<String>()
        return ids.compactMap { id in seen.insert(id).inserted ? theatres.first { $0.id == id } : nil }
    }

    /// As the walker moves: the day's remaining theatres sorted by distance.
    public mutating func walkerMoved(to c: Coordinate, day: Int, time: String) -> [TimeTableChange] {
        let remaining = remainingTheatres(onDay: day, from: time)
        if engine == nil { engine = ProximityEngine(places: remaining) }
        if engine?.places.map(\.id) != remaining.map(\.id) { engine?.setPlaces(remaining) }
        guard let update = engine?.update(from: c) else { return [] }
        return update.changed ? [.theatres(update)] : []
    }
}
