import Geodesy
import LocationSimulation
import Map
import Proximity

/// What the CoffeeShop13 app shows changing, in order.
public enum CoffeeShopChange: Equatable, Sendable {
    case map(MapChange)
    /// The list sorted by proximity (with the row moves a table view animates).
    case list(RankingUpdate)
    /// The detail a selected coffee house shows: its name and comment.
    case detail(name: String, comment: String?)
    case screen(CoffeeShopApp.Screen)
}

/// The CoffeeShop13 assignment's app, headless: a map centred on the user at
/// street scale, a choice of group (Liverpool, Cupertino) that adds its pins,
/// a list sorted by proximity on every delivered fix, a selected coffee house
/// recentring the map on its pin, back removing the pins, refresh recentring
/// on the user.
public struct CoffeeShopApp {
    /// The screen shown: the choice of group, or the list of one group's coffee houses.
    public enum Screen: Equatable, Sendable {
        case groups
        case list(group: String)
    }

    public private(set) var screen: Screen = .groups
    public private(set) var map = MapModel()
    public private(set) var list: RankingUpdate?
    public let places: PlaceSet
    /// Street scale: about a kilometre across.
    public var regionSpan = 1000.0
    private var engine: ProximityEngine?

    public init(places: PlaceSet) {
        self.places = places
    }

    /// The app starts: once the first fix arrives the map centres on the user, with no pins.
    public mutating func locationDelivered(_ location: Location) -> [CoffeeShopChange] {
        var changes = map.updateUserLocation(location.coordinate).map(CoffeeShopChange.map)
        if map.region == nil {
            changes += map.setRegion(MapRegion(center: location.coordinate, latitudinalMeters: regionSpan, longitudinalMeters: regionSpan)).map(CoffeeShopChange.map)
        }
        if engine != nil, let update = engine?.update(from: location.coordinate) {
            list = update
            changes.append(.list(update))
        }
        return changes
    }

    /// Chooses a group: its pins are added and the region stays as it was.
    public mutating func choose(group: String) -> [CoffeeShopChange] {
        let members = places.places.filter { $0.group == group }
        screen = .list(group: group)
        var changes: [CoffeeShopChange] = [.screen(screen)]
        changes += map.add(members.map { Annotation(id: $0.id, coordinate: $0.coordinate, title: $0.name, subtitle: $0.subtitle) }).map(CoffeeShopChange.map)
        engine = ProximityEngine(places: members)
        if let user = map.userLocation, let update = engine?.update(from: user) {
            list = update
            changes.append(.list(update))
        }
        return changes
    }

    /// Selects a coffee house from the list: the map recentres on its pin
    /// (keeping the zoom) and selects it; the detail shows its name and comment.
    public mutating func select(_ id: String) -> Result<[CoffeeShopChange], MapError> {
        guard let place = places.places.first(where: { $0.id == id }) else { return .failure(.notOnMap(id)) }
        switch map.select(id) {
        case .failure(let e):
            return .failure(e)
        case .success(let selection):
            var changes = map.setCenter(place.coordinate).map(CoffeeShopChange.map)
            changes += selection.map(CoffeeShopChange.map)
            changes.append(.detail(name: place.name, comment: place.subtitle))
            return .success(changes)
        }
    }

    /// Back to the groups: the pins go, the list with them.
    public mutating func back() -> [CoffeeShopChange] {
        screen = .groups
        engine = nil
        list = nil
        return [.screen(.groups)] + map.removeAll().map(CoffeeShopChange.map)
    }

    /// The refresh button: recentre on the user.
    public mutating func refresh() -> [CoffeeShopChange] {
        switch map.centerOnUser() {
        case .success(let changes): return changes.map(CoffeeShopChange.map)
        case .failure: return []
        }
    }
}
