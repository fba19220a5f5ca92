import Geodesy
import Map
import Proximity

/// A map of the 64 Liverpool CityBike docking stations and the University's
/// lecture theatres, each group its own clustering identifier (as an app sets
/// `clusteringIdentifier` on its annotation views), on a map 390 points wide
/// that zooms from the whole city down to one street.
public struct CityBikeMapApp {
    public private(set) var map = MapModel()
    public let places: [Place]

    public init(stations: PlaceSet, theatres: PlaceSet, settings: ClusterSettings = ClusterSettings()) throws(MapError) {
        places = stations.places + theatres.places
        _ = map.add(places.map { Annotation(id: $0.id, coordinate: $0.coordinate, title: $0.name, subtitle: $0.subtitle, clusteringIdentifier: $0.group) })
        if case .failure(let error) = map.setClustering(settings) { throw error }
    }

    /// Shows a square `span` metres on a side around `centre`.
    public mutating func show(span: Double, around centre: Coordinate) -> [MapChange] {
        map.setRegion(MapRegion(center: centre, latitudinalMeters: span, longitudinalMeters: span))
    }

    /// Selects a pin or a cluster drawn now.
    public mutating func select(_ id: String) -> Result<[MapChange], MapError> { map.select(id) }

    /// Zooming in from the city to a street: each span half the one before, from `city` down to `street` metres.
    public static func spans(city: Double = 12_000, street: Double = 150) -> [Double] {
        var spans: [Double] = []
        var s = city
        while s >= street {
            spans.append(s)
            s /= 2
        }
        return spans
    }
}
