import CoreLocation
import MapKit

/// A coffee house from the bundled property list: a pin on the map and a row in the list.
public final class CoffeeShop: NSObject, MKAnnotation {
    public let id: String
    public let name: String
    public let comment: String?
    public let coordinate: CLLocationCoordinate2D

    public var title: String? { name }
    public var subtitle: String? { comment }

    init(id: String, name: String, comment: String?, coordinate: CLLocationCoordinate2D) {
        self.id = id
        self.name = name
        self.comment = comment
        self.coordinate = coordinate
    }

    /// The two groups of the original app, in the property list's order.
    public static let groups = ["liverpool", "cupertino"]

    /// Every coffee house by group, from the property list in the bundle.
    public static func load() -> [String: [CoffeeShop]] {
        guard let url = Bundle.module.url(forResource: "CityCycleRideLocations", withExtension: "plist"),
              let data = try? Data(contentsOf: url),
              let groups = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [[[String: Any]]] else { return [:] }
        var shops: [String: [CoffeeShop]] = [:]
        for (group, entries) in zip(Self.groups, groups) {
            shops[group] = entries.enumerated().compactMap { index, entry in
                guard let name = entry["name"] as? String, let latitude = entry["latitude"] as? Double,
                      let longitude = entry["longitude"] as? Double else { return nil }
                return CoffeeShop(id: "\(group)-\(index)", name: name, comment: entry["comments"] as? String,
                                  coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude))
            }
        }
        return shops
    }
}
