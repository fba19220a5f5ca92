import CoreLocation
import Foundation
import MapKit

/// The app's model: the chosen modules' events, a map of the lecture theatres
/// that centres on a module's theatre and selects its pin, and the day's
/// remaining theatres sorted by distance as the student walks.
@MainActor
public final class TimetableViewModel: NSObject, CLLocationManagerDelegate {
    public let mapView = MKMapView()
    public let locationManager = CLLocationManager()
    public private(set) var selectedModules: Set<String>
    public private(set) var remaining: [Theatre] = []
    /// Each time the order of the remaining theatres changed, with the theatre ids.
    public private(set) var orderChanges: [[String]] = []
    /// The modules whose event on ``day`` the student was at: a visit within
    /// 50 m of the event's theatre that began before the event's start and
    /// ended after it (times of day on the walk's clock, UTC), in the order attended.
    public private(set) var attended: [String] = []
    public var day = 0
    public var time = "09:00"

    private let timetable: Timetable
    private let theatres: [String: Theatre]

    public init(timetable: Timetable) {
        self.timetable = timetable
        selectedModules = Set(timetable.modules.keys)
        var pins: [String: Theatre] = [:]
        for (id, r) in timetable.theatreRecords {
            pins[id] = Theatre(TheatreRecord(id: id, name: r.name, subtitle: r.subtitle, latitude: r.latitude, longitude: r.longitude))
        }
        theatres = pins
        super.init()
        mapView.addAnnotations(pins.keys.sorted().compactMap { pins[$0] })
        locationManager.delegate = self
        locationManager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        locationManager.distanceFilter = 25
    }

    public func startWalking() {
        locationManager.startUpdatingLocation()
        locationManager.startMonitoringVisits()
    }

    public func toggle(module: String) {
        if selectedModules.contains(module) { selectedModules.remove(module) } else { selectedModules.insert(module) }
    }

    public func events(onDay day: Int) -> [TimetableHour] {
        guard timetable.week.indices.contains(day) else { return [] }
        return timetable.week[day].compactMap { hour in
            let kept = hour.events.filter { selectedModules.contains($0.module) }
            return kept.isEmpty ? nil : TimetableHour(time: hour.time, events: kept)
        }
    }

    /// A module's detail: the map centres on its theatre (500 m across the first time, keeping the zoom after) and selects the pin.
    @discardableResult
    public func showModule(_ code: String) -> Theatre? {
        guard let module = timetable.modules[code] else { return nil }
        let onDay = timetable.week.indices.contains(day) ? timetable.week[day].flatMap(\.events).first { $0.module == code } : nil
        let location = onDay?.location ?? module.theatre
        guard let theatre = theatres[location] else { return nil }
        if mapView.selectedAnnotations.isEmpty && mapView.region.span.latitudeDelta >= 90 {
            mapView.setRegion(MKCoordinateRegion(center: theatre.coordinate, latitudinalMeters: 500, longitudinalMeters: 500), animated: false)
        } else {
            mapView.setCenter(theatre.coordinate, animated: true)
        }
        mapView.selectAnnotation(theatre, animated: true)
        return theatre
    }

    /// The day's theatres still to come, in timetable order, each once.
    public func remainingTheatres() -> [Theatre] {
        var seen = Set<String>()
        return events(onDay: day).filter { $0.time >= time }.flatMap(\.events).compactMap { event in
            seen.insert(event.location).inserted ? theatres[event.location] : nil
        }
    }

    nonisolated public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let here = locations.last else { return }
        MainActor.assumeIsolated { walked(to: here) }
    }

    nonisolated public func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {
        let place = CLLocation(latitude: visit.coordinate.latitude, longitude: visit.coordinate.longitude)
        let arrival = visit.arrivalDate, departure = visit.departureDate
        MainActor.assumeIsolated { visited(place, from: arrival, to: departure) }
    }

    /// A stay that has ended (iOS reports the arrival first, with a departure in the distant future).
    private func visited(_ place: CLLocation, from arrival: Date, to departure: Date) {
        guard departure != .distantFuture else { return }
        func distance(_ t: Theatre) -> CLLocationDistance {
            place.distance(from: CLLocation(latitude: t.coordinate.latitude, longitude: t.coordinate.longitude))
        }
        guard let theatre = theatres.values.filter({ distance($0) <= 50 }).min(by: { distance($0) < distance($1) }) else { return }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        for hour in events(onDay: day) {
            let clock = hour.time.split(separator: ":").compactMap { Int($0) }
            guard clock.count == 2, let start = calendar.date(bySettingHour: clock[0], minute: clock[1], second: 0, of: arrival),
                  arrival <= start, start < departure else { continue }
            for event in hour.events where event.location == theatre.id && !attended.contains(event.module) {
                attended.append(event.module)
            }
        }
    }

    private func walked(to here: CLLocation) {
        func key(_ t: Theatre) -> (Int, String, String) {
            (Int((here.distance(from: CLLocation(latitude: t.coordinate.latitude, longitude: t.coordinate.longitude)) * 1000).rounded()), t.name, t.id)
        }
        let sorted = remainingTheatres().sorted { key($0) < key($1) }
        if sorted.map(\.id) != remaining.map(\.id) {
            orderChanges.append(sorted.map(\.id))
        }
        remaining = sorted
    }
}
