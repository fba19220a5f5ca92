import Foundation
import Places
import PlacesGeoPackage
import Traces

extension PlaceSources {
    /// The formats places are written in.
    public enum OutputFormat: String, CaseIterable, Sendable {
        /// An array of {id, name, subtitle, latitude, longitude, group}.
        case json
        /// The header id,name,subtitle,latitude,longitude,group.
        case csv
        /// A FeatureCollection of Point features with id, name, subtitle and group properties.
        case geojson
        /// A GeoPackage with one point layer in EPSG:4326.
        case gpkg

        /// The format a file name's extension names (`OUT.gpkg#LAYER` is a GeoPackage); nil for another.
        public init?(fileName: String) {
            self.init(rawValue: (GeoPackagePlaces.split(fileName).path as NSString).pathExtension.lowercased())
        }
    }

    /// Writes `places` to `output` atomically as `format`: for a GeoPackage,
    /// the layer `OUT.gpkg#LAYER` names, else `places`. Returns the path written.
    /// A file that cannot be written is an error naming it.
    @discardableResult
    public static func write(_ places: [Place], as format: OutputFormat, to output: String) throws(Failure) -> String {
        let text: String
        switch format {
        case .gpkg:
            let (path, layer) = GeoPackagePlaces.split(output)
            do {
                try GeoPackageWriter.write(places, layer: layer ?? "places", to: path)
            } catch {
                throw Failure(kind: .unreadable, message: "error: \(error.description)")
            }
            return path
        case .csv: text = PlaceWriter.csv(places)
        case .geojson: text = PlaceWriter.geoJSON(places)
        case .json: text = PlaceWriter.json(places)
        }
        do {
            try TraceWriter.writeAtomically(text, to: output)
        } catch {
            throw Failure(kind: .unreadable, message: "error: \(error.description)")
        }
        return output
    }
}
