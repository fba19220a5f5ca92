import ArgumentParser
import Foundation
import Geodesy
import PlaceSources
import PlacesOSM
import Streets
import Traces

struct GeocodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geocode",
        abstract: "Find addresses in an OpenStreetMap extract: the nearest to a point, or those an address string names.",
        discussion: """
        Addresses are the nodes and ways with addr:street or addr:place (a way at its \
        centroid); or, with --addresses FILE.gpkg[#LAYER], a GeoPackage point layer's \
        features with a street column, or with --addresses postgresql://USER@HOST/DB?table=TABLE \
        a PostGIS table's points (docs/Geocoding.md names the columns read). --reverse LAT,LON gives the nearest address by the WGS84 geodesic within \
        --radius metres (100 by default), or none. An ADDRESS is matched without case or \
        accents: its street (or a building's name) as consecutive words, its house number, \
        and optionally the city, suburb, postcode, state or country code; every match is \
        listed, best first. docs/Geocoding.md has the rules.

        With --json a list of placemarks, each with name, thoroughfare, subThoroughfare, \
        locality, postalCode, country, isoCountryCode, lat, lon and osm (node/ID or way/ID); \
        no result is an empty list and exit 0.

        Many lookups at once: --reverse - or the ADDRESS - (with --json) reads one LAT,LON \
        or one address a line from standard input and writes one JSON list a line. A line \
        that cannot be read gets null and an error on standard error naming its line \
        number; the other lines are still answered and the exit code is then 65.

        Examples:
          stroll geocode --osm Fixtures/osm/monaco-latest.osm.pbf \\
              --reverse 43.7384,7.4246 --json
          stroll geocode --osm Fixtures/osm/monaco-latest.osm.pbf \\
              "4 Avenue de la Madone, Monaco"
        """
    )

    @Option(help: "The OpenStreetMap extract (.osm.pbf or .osm XML) whose addresses answer.")
    var osm: String?

    @Option(help: "Instead of --osm, any address source: an extract, a GeoPackage point layer (FILE.gpkg or FILE.gpkg#LAYER), or a PostGIS table of points (postgresql://USER@HOST/DB?table=TABLE).")
    var addresses: String?

    @Option(parsing: .unconditional, help: "Reverse geocode: the nearest address to LAT,LON (degrees; a negative latitude too).")
    var reverse: String?

    @Option(help: "How far --reverse looks, in metres.")
    var radius: Double = AddressIndex.defaultReverseRadius

    @Argument(help: "The address to find (forward geocoding).")
    var address: String?

    @Flag(help: "A JSON list of placemarks with the keys of the command-line contract.")
    var json = false

    func validate() throws {
        guard (osm == nil) != (addresses == nil) else { throw ValidationError("give either --osm FILE or --addresses SOURCE") }
        guard (reverse == nil) != (address == nil) else { throw ValidationError("give either --reverse LAT,LON or an ADDRESS, not both or neither") }
        guard radius >= 0, radius.isFinite else { throw ValidationError("--radius must be 0 metres or more") }
    }

    func run() throws {
        if reverse == "-" || address == "-" {
            guard json else { throw failure("error: reading lookups from standard input (-) needs --json", StrollExit.usage) }
            return try answerEachLine(reverse: reverse != nil)
        }
        let found: [Address]
        if let reverse {
            let point: Coordinate
            switch Self.coordinate(reverse) {
            case .success(let p): point = p
            case .failure(let e): throw failure("error: \(e.reason)", StrollExit.badInput)
            }
            let index = try load()
            found = index.nearest(to: point, within: radius).map { [$0.address] } ?? []
        } else {
            let text = address ?? ""
            guard !AddressText.tokens(text).isEmpty else { throw failure("error: the address \"\(text)\" has no letter or digit to look for", StrollExit.badInput) }
            found = try load().search(text)
        }
        if json {
            print(JSON.array(found.map(Self.placemark)).text)
        } else if found.isEmpty {
            print("no address found")
        } else {
            for a in found {
                let place = [a.postcode, a.city].compactMap { $0 }.joined(separator: " ")
                let line = [a.name, a.streetLine, place.isEmpty ? nil : place, a.countryName].compactMap { $0 }.joined(separator: ", ")
                print("\(a.id)\t\(line)\t\(a.coordinate.latitude),\(a.coordinate.longitude)")
            }
        }
    }

    /// One lookup per line of standard input, one JSON list per line of output.
    private func answerEachLine(reverse: Bool) throws {
        let index = try load()
        var failed = false
        var lineNumber = 0
        while let line = readLine(strippingNewline: true) {
            lineNumber += 1
            let found: [Address]
            if reverse {
                switch Self.coordinate(line) {
                case .success(let point):
                    found = index.nearest(to: point, within: radius).map { [$0.address] } ?? []
                case .failure(let e):
                    printError("stdin:\(lineNumber): \(e.reason)")
                    failed = true
                    print("null")
                    continue
                }
            } else {
                guard !AddressText.tokens(line).isEmpty else {
                    printError("stdin:\(lineNumber): an address with no letter or digit to look for")
                    failed = true
                    print("null")
                    continue
                }
                found = index.search(line)
            }
            print(JSON.array(found.map(Self.placemark)).text)
        }
        if failed { throw StrollExit.badInput }
    }

    private func load() throws -> AddressIndex {
        let source = osm ?? addresses ?? ""
        if osm != nil, !OSMPlaces.isExtract(source) {
            throw failure("error: \(source): --osm takes an OpenStreetMap extract (.osm.pbf, .osm); a GeoPackage or a PostGIS table goes with --addresses", StrollExit.usage)
        }
        do {
            return try AddressSources.load(source)
        } catch {
            throw failure(error.message, SimulationOptions.exitCode(error.kind))
        }
    }

    /// Why a lookup's input cannot be read.
    struct InputError: Error {
        var reason: String
    }

    /// `LAT,LON` in degrees, or why not.
    static func coordinate(_ text: String) -> Result<Coordinate, InputError> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
            return .failure(InputError(reason: "--reverse takes LAT,LON in degrees (for example 43.7384,7.4246), not \"\(text)\""))
        }
        do {
            return .success(try Coordinate(latitude: lat, longitude: lon))
        } catch {
            return .failure(InputError(reason: "--reverse \(text): \(error)"))
        }
    }

    /// One placemark as the contract's JSON object.
    static func placemark(_ a: Address) -> JSON {
        .object([
            ("name", .string(a.title)),
            ("thoroughfare", .string(a.street)),
            ("subThoroughfare", .optional(a.houseNumber)),
            ("locality", .optional(a.city)),
            ("postalCode", .optional(a.postcode)),
            ("country", .optional(a.countryName)),
            ("isoCountryCode", .optional(a.countryCode)),
            ("lat", .number(a.coordinate.latitude)),
            ("lon", .number(a.coordinate.longitude)),
            ("osm", .string(a.id)),
        ])
    }
}
