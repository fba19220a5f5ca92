import Geodesy
import Testing

@Suite("GeodSolve -i lines")
struct GeodesicInverseLineTests {
    @Test("answers a line with azimuths and distance that read back exactly")
    func answersALine() throws {
        let out = try GeodesicInverseLine.answer("53.406566 -2.966531 53.4107 -2.965").get()
        let fields = out.split(separator: " ").compactMap { Double($0) }
        #expect(fields.count == 3)
        // GeographicLib 2.1: 12.47738732338234 12.478616574462272 471.2198495525366
        #expect(abs(fields[0] - 12.47738732338234) < 1e-12)
        #expect(abs(fields[1] - 12.478616574462272) < 1e-12)
        #expect(abs(fields[2] - 471.2198495525366) < 1e-9)
        // Shortest round-trip digits: printing the parsed values gives the same text.
        #expect(fields.map { "\($0)" }.joined(separator: " ") == out)
    }

    @Test("refuses bad lines with a reason", arguments: [
        ("", "empty line"),
        ("53.4 -2.9 53.4", "found 3 fields"),
        ("53.4 -2.9 53.4 -2.9 7", "found 5 fields"),
        ("53.4 west 53.4 -2.9", "\"west\" is not a number"),
        ("91 0 0 0", "latitude 91.0 is outside [-90, 90]"),
        ("nan 0 0 0", "latitude nan is not a finite number"),
        ("0 0 0 181", "longitude 181.0 is outside [-180, 180]"),
    ])
    func refusesBadLines(line: String, reason: String) {
        guard case .failure(let error) = GeodesicInverseLine.answer(line) else {
            Issue.record("accepted \(line)")
            return
        }
        #expect(error.description.contains(reason), "\(error)")
    }
}
