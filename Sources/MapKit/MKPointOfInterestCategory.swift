#if !canImport(Darwin)
import Foundation
import Streets

/// The kind of a point of interest, with MapKit's raw values
/// (`MKPOICategoryCafe`): the categories up to iOS 17. Stroll gives a place
/// its category from its OpenStreetMap tags by the table in docs/Search.md.
public struct MKPointOfInterestCategory: RawRepresentable, Hashable, Sendable {
    /// MapKit's raw value, such as `MKPOICategoryCafe`.
    public let rawValue: String

    /// The category with this raw value (any string, as MapKit's).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The category with this raw value.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    init(_ category: PointOfInterestCategory) {
        rawValue = category.rawValue
    }

    /// The category of `Streets` with this raw value, if there is one.
    var streetsCategory: PointOfInterestCategory? { PointOfInterestCategory(rawValue: rawValue) }

    /// `MKPOICategoryAirport`.
    public static let airport = MKPointOfInterestCategory(.airport)
    /// `MKPOICategoryAmusementPark`.
    public static let amusementPark = MKPointOfInterestCategory(.amusementPark)
    /// `MKPOICategoryAquarium`.
    public static let aquarium = MKPointOfInterestCategory(.aquarium)
    /// `MKPOICategoryATM`.
    public static let atm = MKPointOfInterestCategory(.atm)
    /// `MKPOICategoryBakery`.
    public static let bakery = MKPointOfInterestCategory(.bakery)
    /// `MKPOICategoryBank`.
    public static let bank = MKPointOfInterestCategory(.bank)
    /// `MKPOICategoryBeach`.
    public static let beach = MKPointOfInterestCategory(.beach)
    /// `MKPOICategoryBrewery`.
    public static let brewery = MKPointOfInterestCategory(.brewery)
    /// `MKPOICategoryCafe`.
    public static let cafe = MKPointOfInterestCategory(.cafe)
    /// `MKPOICategoryCampground`.
    public static let campground = MKPointOfInterestCategory(.campground)
    /// `MKPOICategoryCarRental`.
    public static let carRental = MKPointOfInterestCategory(.carRental)
    /// `MKPOICategoryEVCharger`.
    public static let evCharger = MKPointOfInterestCategory(.evCharger)
    /// `MKPOICategoryFireStation`.
    public static let fireStation = MKPointOfInterestCategory(.fireStation)
    /// `MKPOICategoryFitnessCenter`.
    public static let fitnessCenter = MKPointOfInterestCategory(.fitnessCenter)
    /// `MKPOICategoryFoodMarket`.
    public static let foodMarket = MKPointOfInterestCategory(.foodMarket)
    /// `MKPOICategoryGasStation`.
    public static let gasStation = MKPointOfInterestCategory(.gasStation)
    /// `MKPOICategoryHospital`.
    public static let hospital = MKPointOfInterestCategory(.hospital)
    /// `MKPOICategoryHotel`.
    public static let hotel = MKPointOfInterestCategory(.hotel)
    /// `MKPOICategoryLaundry`.
    public static let laundry = MKPointOfInterestCategory(.laundry)
    /// `MKPOICategoryLibrary`.
    public static let library = MKPointOfInterestCategory(.library)
    /// `MKPOICategoryMarina`.
    public static let marina = MKPointOfInterestCategory(.marina)
    /// `MKPOICategoryMovieTheater`.
    public static let movieTheater = MKPointOfInterestCategory(.movieTheater)
    /// `MKPOICategoryMuseum`.
    public static let museum = MKPointOfInterestCategory(.museum)
    /// `MKPOICategoryNationalPark`.
    public static let nationalPark = MKPointOfInterestCategory(.nationalPark)
    /// `MKPOICategoryNightlife`.
    public static let nightlife = MKPointOfInterestCategory(.nightlife)
    /// `MKPOICategoryPark`.
    public static let park = MKPointOfInterestCategory(.park)
    /// `MKPOICategoryParking`.
    public static let parking = MKPointOfInterestCategory(.parking)
    /// `MKPOICategoryPharmacy`.
    public static let pharmacy = MKPointOfInterestCategory(.pharmacy)
    /// `MKPOICategoryPolice`.
    public static let police = MKPointOfInterestCategory(.police)
    /// `MKPOICategoryPostOffice`.
    public static let postOffice = MKPointOfInterestCategory(.postOffice)
    /// `MKPOICategoryPublicTransport`.
    public static let publicTransport = MKPointOfInterestCategory(.publicTransport)
    /// `MKPOICategoryRestaurant`.
    public static let restaurant = MKPointOfInterestCategory(.restaurant)
    /// `MKPOICategoryRestroom`.
    public static let restroom = MKPointOfInterestCategory(.restroom)
    /// `MKPOICategorySchool`.
    public static let school = MKPointOfInterestCategory(.school)
    /// `MKPOICategoryStadium`.
    public static let stadium = MKPointOfInterestCategory(.stadium)
    /// `MKPOICategoryStore`.
    public static let store = MKPointOfInterestCategory(.store)
    /// `MKPOICategoryTheater`.
    public static let theater = MKPointOfInterestCategory(.theater)
    /// `MKPOICategoryUniversity`.
    public static let university = MKPointOfInterestCategory(.university)
    /// `MKPOICategoryWinery`.
    public static let winery = MKPointOfInterestCategory(.winery)
    /// `MKPOICategoryZoo`.
    public static let zoo = MKPointOfInterestCategory(.zoo)
}
#endif
