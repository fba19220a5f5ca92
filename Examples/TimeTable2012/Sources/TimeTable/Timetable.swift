import Foundation
import MapKit

public struct Module: Decodable, Sendable {
    public let moduleCode: String
    public let moduleTitle: String
    public let theatre: String
}

public struct TimetableEvent: Decodable, Sendable {
    public let module: String
    public let type: String
    public let location: String
}

public struct TimetableHour: Decodable, Sendable {
    public let time: String
    public let events: [TimetableEvent]
}

struct TimetableFile: Decodable {
    let timetable: [[TimetableHour]]
}

struct TheatreRecord: Decodable {
    let id: String
    let name: String
    let subtitle: String?
    let latitude: Double
    let longitude: Double
}

/// A lecture theatre's pin.
public final class Theatre: NSObject, MKAnnotation {
    public let id: String
    public let name: String
    public let coordinate: CLLocationCoordinate2D
    public let subtitle: String?
    public var title: String? { name }

    init(_ record: TheatreRecord) {
        id = record.id
        name = record.name
        subtitle = record.subtitle
        coordinate = CLLocationCoordinate2D(latitude: record.latitude, longitude: record.longitude)
    }
}

/// The week, the modules and the theatres from the bundle.
public struct Timetable: Sendable {
    public let week: [[TimetableHour]]
    public let modules: [String: Module]
    public let theatreRecords: [String: (name: String, subtitle: String?, latitude: Double, longitude: Double)]

    public static func bundled() throws -> Timetable {
        func load<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
            guard let url = Bundle.module.url(forResource: name, withExtension: "json") else { throw CocoaError(.fileNoSuchFile) }
            return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
        }
        let theatres = try load("lecture-theatres", as: [TheatreRecord].self)
        return Timetable(week: try load("TimeTable", as: TimetableFile.self).timetable,
                         modules: try load("Semester1Modules", as: [String: Module].self),
                         theatreRecords: Dictionary(theatres.map { ($0.id, ($0.name, $0.subtitle, $0.latitude, $0.longitude)) },
                                                    uniquingKeysWith: { a, _ in a }))
    }
}
