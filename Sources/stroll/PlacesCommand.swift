import ArgumentParser
import Foundation
import PlacesGeoPackage
import Proximity
import Replay
import Traces

struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Inspect and convert place sources (JSON, CSV, GeoJSON, KML, the CoffeeShop13 list, OpenStreetMap, GeoPackage).",
        subcommands: [Info.self, Convert.self]
    )

    /// The source and the options that choose its places, as every command's --places takes them.
    struct Source: ParsableArguments {
        @Argument(help: "The place source: .plist, .json, .csv, .geojson, .kml/.kmz, .osm.pbf, .osm, Overpass .json, .gpkg or .gpkg#LAYER, postgresql://USER@HOST:PORT/DB?table=TABLE.")
        var source: String

        @OptionGroup var choice: SimulationOptions.PlaceChoice

        func load() throws -> PlaceSet {
            try SimulationOptions.loadPlaceFile(source, choice: choice)
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What a place source holds: places per group, bounds, what was skipped and why.",
            discussion: """
            With --json one object: count, groups (name to count, in order), bounds (minLat, \
            minLon, maxLat, maxLon; null without places) and skipped (a list of {reason, count}: \
            the reasons with their numbers as N, so alike skips count together). Without it, a \
            table and every skipped entry with its own reason.

            Example:
              stroll places info monaco-latest.osm.pbf --osm-filter amenity=cafe,restaurant --json
            """
        )

        @OptionGroup var source: Source

        @Flag(help: "One JSON object with the keys of the command-line contract.")
        var json = false

        func run() throws {
            let set = try source.load()
            var counts: [String: Int] = [:]
            for p in set.places { counts[p.group, default: 0] += 1 }
            let lats = set.places.map(\.coordinate.latitude), lons = set.places.map(\.coordinate.longitude)
            var skipped: [(String, Int)] = []
            for r in set.rejected {
                let reason = r.reason.replacingOccurrences(of: "[0-9]+", with: "N", options: .regularExpression)
                if let k = skipped.firstIndex(where: { $0.0 == reason }) { skipped[k].1 += 1 } else { skipped.append((reason, 1)) }
            }
            if json {
                let bounds: JSON = set.places.isEmpty ? .null : .object([
                    ("minLat", .number(lats.min() ?? 0)), ("minLon", .number(lons.min() ?? 0)),
                    ("maxLat", .number(lats.max() ?? 0)), ("maxLon", .number(lons.max() ?? 0)),
                ])
                print(JSON.object([("count", .int(set.places.count)), ("groups", .object(set.groups.map { ($0, .int(counts[$0] ?? 0)) })),
                                   ("bounds", bounds), ("skipped", .array(skipped.map { .object([("reason", .string($0.0)), ("count", .int($0.1))]) }))]).text)
                return
            }
            print("places      \(set.places.count)")
            for g in set.groups { print("  \(g): \(counts[g] ?? 0)") }
            if let minLat = lats.min(), let maxLat = lats.max(), let minLon = lons.min(), let maxLon = lons.max() {
                print("bounds      \(minLat), \(minLon) to \(maxLat), \(maxLon)")
            }
            print("skipped     \(set.rejected.count)")
            for r in set.rejected { print("  \(r.entry): \(r.reason)") }
        }
    }

    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a place source as JSON, CSV, GeoJSON or GeoPackage, for Stroll and for GIS tools.",
            discussion: """
            FORMAT is json (an array of {id, name, subtitle, latitude, longitude, group}), csv \
            (the header id,name,subtitle,latitude,longitude,group) or geojson (a FeatureCollection \
            of Point features with id, name, subtitle and group properties) or gpkg (a GeoPackage with \
            one point layer, places, or the layer OUT.gpkg#LAYER names, in EPSG:4326 with the columns \
            id, name, subtitle and group); without --to it is told by OUT's extension. Coordinates keep \
            every digit. The output is written atomically.

            Example:
              stroll places convert monaco-latest.osm.pbf cafes.geojson --osm-filter amenity=cafe
            """
        )

        @OptionGroup var source: Source

        @Argument(help: "The file to write.")
        var output: String

        @Option(help: ArgumentHelp("json, csv, geojson or gpkg.", valueName: "FORMAT"))
        var to: String?

        static let formats = ["json", "csv", "geojson", "gpkg"]

        var format: String? {
            to ?? [(GeoPackagePlaces.split(output).path as NSString).pathExtension.lowercased()].first { Self.formats.contains($0) }
        }

        func validate() throws {
            guard let format, Self.formats.contains(format) else {
                throw ValidationError(to.map { "--to must be json, csv, geojson or gpkg, not \($0)" } ?? "cannot tell the format from \(output)'s extension; name it with --to")
            }
        }

        func run() throws {
            let set = try source.load()
            for r in set.rejected { printError("warning: \(r.description)") }
            if format == "gpkg" {
                let (path, layer) = GeoPackagePlaces.split(output)
                do {
                    try GeoPackageWriter.write(set.places, layer: layer ?? "places", to: path)
                } catch {
                    printError("error: \(error.description)")
                    throw StrollExit.missingInput
                }
                print("wrote \(path) (gpkg): \(set.places.count) places in \(set.groups.count) groups\(set.rejected.isEmpty ? "" : ", \(set.rejected.count) skipped")")
                return
            }
            let text: String
            switch format {
            case "csv": text = PlaceWriter.csv(set.places)
            case "geojson": text = PlaceWriter.geoJSON(set.places)
            default: text = PlaceWriter.json(set.places)
            }
            do {
                try TraceWriter.writeAtomically(text, to: output)
            } catch {
                printError("error: cannot write \(output): \(error.localizedDescription)")
                throw StrollExit.missingInput
            }
            print("wrote \(output) (\(format ?? "")): \(set.places.count) places in \(set.groups.count) groups\(set.rejected.isEmpty ? "" : ", \(set.rejected.count) skipped")")
        }
    }
}
