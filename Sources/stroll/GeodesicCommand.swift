import ArgumentParser
import Geodesy

struct GeodesicCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geodesic",
        abstract: "Solve geodesic problems on the WGS84 ellipsoid (Karney's method).",
        subcommands: [Inverse.self]
    )

    struct Inverse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Distance and azimuths between pairs of points, as GeographicLib's GeodSolve -i.",
            discussion: """
            Reads lines "lat1 lon1 lat2 lon2" (degrees, separated by spaces, tabs or commas) \
            on standard input and writes "azi1 azi2 s12": the forward azimuths at the first \
            and the second point in degrees and the distance in metres, each with the \
            shortest digits that read back to the same double.

            A line that cannot be read gets an error on standard error naming its line \
            number; the other lines are still answered and the exit code is then 65.

            Example:
              echo "53.406566 -2.966531 53.4107 -2.965" | stroll geodesic inverse
            """
        )

        func run() throws {
            var failed = false
            var lineNumber = 0
            while let line = readLine(strippingNewline: true) {
                lineNumber += 1
                switch GeodesicInverseLine.answer(line) {
                case .success(let output):
                    print(output)
                case .failure(let error):
                    failed = true
                    printError("stdin:\(lineNumber): \(error)")
                }
            }
            if failed { throw StrollExit.badInput }
        }
    }
}

/// One line of `stroll geodesic inverse`: parse, solve, format.
enum GeodesicInverseLine {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func answer(_ line: String, geodesic: Geodesic = .wgs84) -> Result<String, Failure> {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\r" })
        guard !fields.isEmpty else { return .failure(Failure(description: "empty line; expected \"lat1 lon1 lat2 lon2\"")) }
        guard fields.count == 4 else {
            return .failure(Failure(description: "expected 4 numbers \"lat1 lon1 lat2 lon2\", found \(fields.count) fields"))
        }
        var values: [Double] = []
        for (index, field) in fields.enumerated() {
            guard let v = Double(field) else {
                return .failure(Failure(description: "field \(index + 1) \"\(field)\" is not a number"))
            }
            values.append(v)
        }
        do {
            let p1 = try Coordinate(latitude: values[0], longitude: values[1])
            let p2 = try Coordinate(latitude: values[2], longitude: values[3])
            let r = geodesic.inverse(p1, p2)
            return .success("\(r.azimuth1) \(r.azimuth2) \(r.distance)")
        } catch {
            return .failure(Failure(description: error.description))
        }
    }
}
