import Foundation
import Geodesy

/// Where a local search looks.
public enum SearchArea: Sendable, Equatable {
    /// The whole extract.
    case everywhere
    /// A rectangle of latitude and longitude around a centre, as
    /// `MKCoordinateRegion` gives it (edges included, across the antimeridian too).
    case region(center: Coordinate, latitudeDelta: Double, longitudeDelta: Double)
    /// The places within `radius` metres of `center` along the WGS84 geodesic.
    case circle(center: Coordinate, radius: Double)

    /// The point results are ordered from; nil for the whole extract.
    public var center: Coordinate? {
        switch self {
        case .everywhere: nil
        case let .region(center, _, _), let .circle(center, _): center
        }
    }

    /// Whether `coordinate` is inside, given its geodesic distance from the centre.
    func contains(_ coordinate: Coordinate, distance: Double?) -> Bool {
        switch self {
        case .everywhere:
            return true
        case let .circle(_, radius):
            return (distance ?? .infinity) <= radius
        case let .region(center, latitudeDelta, longitudeDelta):
            guard abs(coordinate.latitude - center.latitude) <= latitudeDelta / 2 else { return false }
            if longitudeDelta >= 360 { return true }
            var dLon = abs(coordinate.longitude - center.longitude)
            if dLon > 180 { dLon = 360 - dLon }
            return dLon <= longitudeDelta / 2
        }
    }
}

/// Which categories a search keeps, as `MKPointOfInterestFilter` says it.
public enum CategoryFilter: Sendable, Equatable {
    /// Every place, with a category or without.
    case includingAll
    /// No place.
    case excludingAll
    /// The places of these categories (a place without a category is left out).
    case including(Set<PointOfInterestCategory>)
    /// Every place but those of these categories (a place without a category is kept).
    case excluding(Set<PointOfInterestCategory>)

    /// Whether a place of `category` (nil: none) is kept.
    public func includes(_ category: PointOfInterestCategory?) -> Bool {
        switch self {
        case .includingAll: true
        case .excludingAll: false
        case let .including(categories): category.map(categories.contains) ?? false
        case let .excluding(categories): category.map { !categories.contains($0) } ?? true
        }
    }
}

extension PointsOfInterest {
    /// A place a search found, and its distance from the search's centre.
    public struct Found: Sendable, Equatable {
        /// The place.
        public var place: PointOfInterest
        /// Metres from the area's centre along the WGS84 geodesic (Karney's
        /// method); nil when the area is the whole extract.
        public var distance: Double?
    }

    /// The places that match `query` (nil or blank: every place), whose
    /// category `categories` keeps, inside `area`.
    ///
    /// A query matches a place when each of its words (``SearchText``) is the
    /// start of a word of the place's name, or is one of the words of the
    /// place's category (``PointOfInterestCategory/words``), itself or less a
    /// final "s": "cafe" finds every cafe and "Café de Paris" whatever its
    /// category; "coffee" finds the cafes; "gel" finds "La Gelateria".
    ///
    /// Ordered from the area's centre: by geodesic distance rounded to the
    /// millimetre, then by name (Unicode scalar order), nodes before ways,
    /// then by id; without a centre, by name, element and id. One order on
    /// every machine and run.
    public func search(_ query: String?, categories: CategoryFilter = .includingAll, in area: SearchArea = .everywhere) -> [Found] {
        let queryWords = query.map(SearchText.words) ?? []
        let center = area.center
        var found: [Found] = []
        for (index, place) in places.enumerated() where categories.includes(place.category) {
            guard queryWords.allSatisfy({ Self.word($0, matches: nameWords[index], category: place.category) }) else { continue }
            let distance = center.map { Geodesic.wgs84.distance($0, place.coordinate) }
            guard area.contains(place.coordinate, distance: distance) else { continue }
            found.append(Found(place: place, distance: distance))
        }
        found.sort(by: Self.precedes)
        return found
    }

    static let categoryWords: [PointOfInterestCategory: Set<String>] =
        Dictionary(uniqueKeysWithValues: PointOfInterestCategory.allCases.map { ($0, $0.words) })

    static func word(_ word: String, matches nameWords: [String], category: PointOfInterestCategory?) -> Bool {
        if nameWords.contains(where: { $0.hasPrefix(word) }) { return true }
        guard let category, let words = categoryWords[category] else { return false }
        return words.contains(word) || (word.count > 1 && word.hasSuffix("s") && words.contains(String(word.dropLast())))
    }

    static func precedes(_ a: Found, _ b: Found) -> Bool {
        if let da = a.distance, let db = b.distance {
            let ma = (da * 1000).rounded(), mb = (db * 1000).rounded()
            if ma != mb { return ma < mb }
        }
        if !a.place.name.unicodeScalars.elementsEqual(b.place.name.unicodeScalars) {
            return a.place.name.unicodeScalars.lexicographicallyPrecedes(b.place.name.unicodeScalars) { $0.value < $1.value }
        }
        if a.place.element != b.place.element { return a.place.element < b.place.element }
        return a.place.id < b.place.id
    }
}
