/// One line of `stroll geodesic inverse`, the format of GeographicLib's
/// `GeodSolve -i`: parse, solve, format.
public enum GeodesicInverseLine {
    /// Why a line cannot be answered.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The answer to one line "lat1 lon1 lat2 lon2" (degrees, separated by spaces,
    /// tabs or commas): "azi1 azi2 s12", each the shortest digits that read back
    /// to the same double, as GeographicLib's `GeodSolve -i` prints them.
    public static func answer(_ line: String, geodesic: Geodesic = .wgs84) -> Result<String, Failure> {
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
