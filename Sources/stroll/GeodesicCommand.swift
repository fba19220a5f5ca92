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
