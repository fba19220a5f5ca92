/// The kinds of place MapKit sorts points of interest into (the 40
/// categories of `MKPointOfInterestCategory` up to iOS 17), each with
/// MapKit's raw value, and the OpenStreetMap tags that make an element one.
///
/// ``init(tags:)`` reads the table in docs/Search.md: the keys are tried in
/// the order of ``keys`` and the first that maps its value wins, so a node
/// tagged `amenity=cafe` and `shop=coffee` is a cafe.
public enum PointOfInterestCategory: String, CaseIterable, Sendable, Hashable {
    /// `aeroway=aerodrome`, `aeroway=heliport`.
    case airport = "MKPOICategoryAirport"
    /// `tourism=theme_park`, `leisure=water_park`.
    case amusementPark = "MKPOICategoryAmusementPark"
    /// `tourism=aquarium`.
    case aquarium = "MKPOICategoryAquarium"
    /// `amenity=atm`.
    case atm = "MKPOICategoryATM"
    /// `shop=bakery`, `shop=pastry`.
    case bakery = "MKPOICategoryBakery"
    /// `amenity=bank`, `amenity=bureau_de_change`.
    case bank = "MKPOICategoryBank"
    /// `leisure=beach_resort`, `natural=beach`.
    case beach = "MKPOICategoryBeach"
    /// `amenity=brewery`, `craft=brewery`.
    case brewery = "MKPOICategoryBrewery"
    /// `amenity=cafe`.
    case cafe = "MKPOICategoryCafe"
    /// `tourism=camp_site`.
    case campground = "MKPOICategoryCampground"
    /// `amenity=car_rental`.
    case carRental = "MKPOICategoryCarRental"
    /// `amenity=charging_station`.
    case evCharger = "MKPOICategoryEVCharger"
    /// `amenity=fire_station`.
    case fireStation = "MKPOICategoryFireStation"
    /// `leisure=fitness_centre`, `leisure=sports_centre`.
    case fitnessCenter = "MKPOICategoryFitnessCenter"
    /// `shop=supermarket`, `shop=convenience`, `shop=greengrocer`, `shop=butcher`, `shop=deli`.
    case foodMarket = "MKPOICategoryFoodMarket"
    /// `amenity=fuel`.
    case gasStation = "MKPOICategoryGasStation"
    /// `amenity=hospital`, `amenity=clinic`, `healthcare=hospital`, `healthcare=clinic`.
    case hospital = "MKPOICategoryHospital"
    /// `tourism=hotel`, `tourism=motel`, `tourism=hostel`, `tourism=guest_house`, `tourism=apartment`.
    case hotel = "MKPOICategoryHotel"
    /// `shop=laundry`, `shop=dry_cleaning`.
    case laundry = "MKPOICategoryLaundry"
    /// `amenity=library`.
    case library = "MKPOICategoryLibrary"
    /// `leisure=marina`.
    case marina = "MKPOICategoryMarina"
    /// `amenity=cinema`.
    case movieTheater = "MKPOICategoryMovieTheater"
    /// `tourism=museum`, `tourism=gallery`.
    case museum = "MKPOICategoryMuseum"
    /// `boundary=national_park`.
    case nationalPark = "MKPOICategoryNationalPark"
    /// `amenity=bar`, `amenity=pub`, `amenity=nightclub`, `amenity=biergarten`, `amenity=casino`.
    case nightlife = "MKPOICategoryNightlife"
    /// `leisure=park`, `leisure=garden`.
    case park = "MKPOICategoryPark"
    /// `amenity=parking`, `amenity=parking_entrance`.
    case parking = "MKPOICategoryParking"
    /// `amenity=pharmacy`, `healthcare=pharmacy`.
    case pharmacy = "MKPOICategoryPharmacy"
    /// `amenity=police`.
    case police = "MKPOICategoryPolice"
    /// `amenity=post_office`.
    case postOffice = "MKPOICategoryPostOffice"
    /// `amenity=bus_station`, `amenity=ferry_terminal`, `railway=station`, `railway=halt`, `public_transport=station`, `highway=bus_stop`.
    case publicTransport = "MKPOICategoryPublicTransport"
    /// `amenity=restaurant`, `amenity=fast_food`, `amenity=food_court`.
    case restaurant = "MKPOICategoryRestaurant"
    /// `amenity=toilets`.
    case restroom = "MKPOICategoryRestroom"
    /// `amenity=school`, `amenity=kindergarten`.
    case school = "MKPOICategorySchool"
    /// `leisure=stadium`.
    case stadium = "MKPOICategoryStadium"
    /// any other `shop`.
    case store = "MKPOICategoryStore"
    /// `amenity=theatre`, `amenity=arts_centre`.
    case theater = "MKPOICategoryTheater"
    /// `amenity=university`, `amenity=college`.
    case university = "MKPOICategoryUniversity"
    /// `shop=winery`, `craft=winery`.
    case winery = "MKPOICategoryWinery"
    /// `tourism=zoo`.
    case zoo = "MKPOICategoryZoo"

    /// The OpenStreetMap keys the table reads, in the order they are tried.
    public static let keys = ["amenity", "shop", "tourism", "leisure", "healthcare", "craft", "natural", "aeroway",
                              "railway", "public_transport", "highway", "boundary"]

    /// Key, then value (`*` for any value of the key), to category: docs/Search.md prints it.
    static let table: [String: [String: PointOfInterestCategory]] = [
        "amenity": [
            "cafe": .cafe, "restaurant": .restaurant, "fast_food": .restaurant, "food_court": .restaurant,
            "pharmacy": .pharmacy, "hospital": .hospital, "clinic": .hospital,
            "parking": .parking, "parking_entrance": .parking, "bus_station": .publicTransport,
            "ferry_terminal": .publicTransport, "university": .university, "college": .university,
            "school": .school, "kindergarten": .school, "bank": .bank, "bureau_de_change": .bank, "atm": .atm,
            "theatre": .theater, "arts_centre": .theater, "cinema": .movieTheater, "library": .library,
            "police": .police, "post_office": .postOffice, "bar": .nightlife, "pub": .nightlife,
            "nightclub": .nightlife, "biergarten": .nightlife, "casino": .nightlife, "fuel": .gasStation,
            "toilets": .restroom, "charging_station": .evCharger, "fire_station": .fireStation,
            "car_rental": .carRental, "brewery": .brewery,
        ],
        "shop": [
            "bakery": .bakery, "pastry": .bakery, "supermarket": .foodMarket, "convenience": .foodMarket,
            "greengrocer": .foodMarket, "butcher": .foodMarket, "deli": .foodMarket, "laundry": .laundry,
            "dry_cleaning": .laundry, "winery": .winery, "*": .store,
        ],
        "tourism": [
            "museum": .museum, "gallery": .museum, "hotel": .hotel, "motel": .hotel, "hostel": .hotel,
            "guest_house": .hotel, "apartment": .hotel, "theme_park": .amusementPark, "aquarium": .aquarium,
            "camp_site": .campground, "zoo": .zoo,
        ],
        "leisure": [
            "park": .park, "garden": .park, "fitness_centre": .fitnessCenter, "sports_centre": .fitnessCenter,
            "marina": .marina, "stadium": .stadium, "water_park": .amusementPark, "beach_resort": .beach,
        ],
        "healthcare": ["pharmacy": .pharmacy, "hospital": .hospital, "clinic": .hospital],
        "craft": ["brewery": .brewery, "winery": .winery],
        "natural": ["beach": .beach],
        "aeroway": ["aerodrome": .airport, "heliport": .airport],
        "railway": ["station": .publicTransport, "halt": .publicTransport],
        "public_transport": ["station": .publicTransport],
        "highway": ["bus_stop": .publicTransport],
        "boundary": ["national_park": .nationalPark],
    ]

    /// The category of an element with `tags`, or nil when no key of the
    /// table maps its value.
    public init?(tags: [String: String]) {
        for key in Self.keys {
            guard let value = tags[key], let values = Self.table[key] else { continue }
            if let category = values[value] ?? values["*"] {
                self = category
                return
            }
        }
        return nil
    }

    /// The tags that give the category, as `key=value` (`shop=*`: any other value of `shop`).
    public var tags: Set<String> {
        var tags = Set<String>()
        for (key, values) in Self.table {
            for (value, category) in values where category == self { tags.insert("\(key)=\(value)") }
        }
        return tags
    }

    /// MapKit's name of the category (`cafe`, `publicTransport`).
    public var name: String {
        String(describing: self)
    }

    /// The category MapKit names `name` (`cafe`, `publicTransport`), compared without case.
    public init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        self = found
    }

    /// The words of a query that name the category: its name's words and a
    /// few synonyms, folded as ``SearchText`` folds (docs/Search.md lists them).
    public var words: Set<String> {
        var words = Set(Self.splitName(name))
        words.formUnion(Self.synonyms[self] ?? [])
        return words
    }

    static let synonyms: [PointOfInterestCategory: [String]] = [
        .airport: ["heliport", "airfield"],
        .atm: ["cashpoint", "cash"],
        .bakery: ["bread", "pastry", "patisserie", "boulangerie"],
        .cafe: ["coffee", "coffeehouse", "coffeeshop", "espresso"],
        .fitnessCenter: ["gym", "fitness"],
        .foodMarket: ["supermarket", "grocery", "groceries"],
        .gasStation: ["fuel", "petrol"],
        .hospital: ["clinic", "emergency"],
        .hotel: ["hostel", "motel", "lodging"],
        .movieTheater: ["cinema"],
        .museum: ["gallery", "musee"],
        .nightlife: ["bar", "pub", "club", "nightclub"],
        .park: ["garden"],
        .pharmacy: ["chemist", "drugstore", "pharmacie"],
        .postOffice: ["post"],
        .publicTransport: ["bus", "station", "train", "tram", "metro", "transit", "ferry"],
        .restaurant: ["food", "dining"],
        .restroom: ["toilet", "toilets", "wc"],
        .store: ["shop", "shopping"],
        .theater: ["theatre"],
        .university: ["college"],
    ]

    /// `publicTransport` as `["public", "transport"]`, `evCharger` as `["ev", "charger"]`.
    static func splitName(_ name: String) -> [String] {
        var words: [String] = []
        var word = ""
        var previousUpper = false
        for character in name {
            if character.isUppercase, !word.isEmpty, !previousUpper {
                words.append(word)
                word = ""
            }
            previousUpper = character.isUppercase
            word.append(character)
        }
        if !word.isEmpty { words.append(word) }
        return words.map { $0.lowercased() }
    }
}
