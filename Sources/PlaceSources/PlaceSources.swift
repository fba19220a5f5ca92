import Foundation
import Places
import PlacesGeoPackage
import PlacesOSM
import PlacesPostGIS

/// Opens any place source Stroll reads, by path or URI: the CoffeeShop13
/// list, JSON, CSV, GeoJSON, KML/KMZ, an OpenStreetMap extract (`.osm.pbf`,
/// `.osm`) or Overpass answer, a GeoPackage layer (`FILE.gpkg#LAYER`) or a
/// PostGIS table (`postgresql://…`). The command line, the batch and any
/// library user call this one entry point; it depends on every place reader,
/// so an app that only ranks places imports `Places` instead.
public enum PlaceSources {
    /// How places are chosen from sources that hold more than places.
    public struct Options: Sendable, Equatable {
        /// OpenStreetMap: the elements with these tags (required for an OSM source).
        public var osmFilters: [OSMFilter]
        /// OpenStreetMap: one group of this name instead of a group per tag value.
        public var groupName: String?
        /// GeoPackage: the columns of each place's name and group.
        public var nameColumn: String?
        public var groupColumn: String?
        /// PostGIS: this query's rows instead of the URI's table.
        public var sql: String?

        public init(osmFilters: [OSMFilter] = [], groupName: String? = nil, nameColumn: String? = nil, groupColumn: String? = nil, sql: String? = nil) {
            self.osmFilters = osmFilters
            self.groupName = groupName
            self.nameColumn = nameColumn
            self.groupColumn = groupColumn
            self.sql = sql
        }
    }

    /// A source that cannot be read: the line to print (naming the source and
    /// the reason; a PostGIS password is never in it) and what kind of failure
    /// it is (missing input, bad data, a usage error).
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var kind: PlaceSourceFailure
        public var message: String
        public var description: String { message }
    }

    /// The places of `source`, and notes worth saying (columns that were guessed).
    public static func load(_ source: String, options: Options = Options()) throws(Failure) -> (places: PlaceSet, notes: [String]) {
        if PostGISSource.isPostGIS(source) {
            do {
                let (set, reading) = try PostGISPlaces.load(try PostGISSource(source), sql: options.sql)
                return (set, reading.guessed.isEmpty ? [] : ["note: \(PostGISSource.redact(source)): \(reading.description)"])
            } catch {
                throw Failure(kind: error.kind, message: "error: \(error.description)")
            }
        }
        if GeoPackagePlaces.isGeoPackage(source) {
            do {
                let (set, reading) = try GeoPackagePlaces.load(source, nameColumn: options.nameColumn, groupColumn: options.groupColumn)
                return (set, reading.guessed.isEmpty ? [] : ["note: \(source): \(reading.description)"])
            } catch {
                throw Failure(kind: error.kind, message: "error: \(error.description)")
            }
        }
        let overpass = !OSMPlaces.isExtract(source) && source.lowercased().hasSuffix(".json")
            && FileManager.default.contents(atPath: source).map(OSMPlaces.isOverpass) == true
        if options.osmFilters.isEmpty, OSMPlaces.isExtract(source) || overpass {
            throw Failure(kind: .usage, message: "error: \(source): an OpenStreetMap source needs --osm-filter KEY=VALUE,... (for example amenity=cafe) to choose its places")
        }
        if OSMPlaces.isExtract(source) || overpass {
            do {
                if overpass, let data = FileManager.default.contents(atPath: source) {
                    return (try OSMPlaces.loadOverpass(data, file: source, filters: options.osmFilters, groupName: options.groupName), [])
                }
                return (try OSMPlaces.load(source, filters: options.osmFilters, groupName: options.groupName), [])
            } catch {
                throw Failure(kind: error.unreadable ? .unreadable : .badData, message: "error: \(error.description)")
            }
        }
        do {
            return (try PlaceSet.load(source), [])
        } catch {
            throw Failure(kind: error.unreadable ? .unreadable : .badData, message: error.description)
        }
    }
}
