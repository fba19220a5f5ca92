import ArgumentParser
import Foundation
import Places
import PlaceSources

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
              stroll places info Fixtures/osm/monaco-latest.osm.pbf \\
                  --osm-filter amenity=cafe,restaurant --json
            """
        )

        @OptionGroup var source: Source

        @Flag(help: "One JSON object with the keys of the command-line contract.")
        var json = false

        func run() throws {
            let stats = PlaceStatistics(try source.load())
            print(json ? stats.json.text : stats.table)
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
              stroll places convert Fixtures/osm/monaco-latest.osm.pbf cafes.geojson \\
                  --osm-filter amenity=cafe
            """
        )

        @OptionGroup var source: Source

        @Argument(help: "The file to write.")
        var output: String

        @Option(help: ArgumentHelp("json, csv, geojson or gpkg.", valueName: "FORMAT"))
        var to: String?

        var format: PlaceSources.OutputFormat? {
            to.map { PlaceSources.OutputFormat(rawValue: $0) } ?? PlaceSources.OutputFormat(fileName: output)
        }

        func validate() throws {
            guard format != nil else {
                throw ValidationError(to.map { "--to must be json, csv, geojson or gpkg, not \($0)" } ?? "cannot tell the format from \(output)'s extension; name it with --to")
            }
        }

        func run() throws {
            try checkOutputs([format == .gpkg ? output.split(separator: "#", maxSplits: 1).first.map(String.init) ?? output : output])
            let set = try source.load()
            for r in set.rejected { printError("warning: \(r.description)") }
            guard let format else { throw StrollExit.usage }
            let path: String
            do {
                path = try PlaceSources.write(set.places, as: format, to: output)
            } catch {
                throw failure(error.message, StrollExit.ioError)
            }
            print("wrote \(path) (\(format.rawValue)): \(count(set.places.count, "place")) in \(count(set.groups.count, "group"))\(set.rejected.isEmpty ? "" : ", \(set.rejected.count) skipped")")
        }
    }
}
