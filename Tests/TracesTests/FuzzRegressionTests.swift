import Foundation
import Testing
import TestSupport
@testable import Traces

/// Inputs the fuzzers found, kept so that they stay fixed.
@Suite("Fuzzer findings")
struct FuzzRegressionTests {
    @Test("a quote inside an unquoted CSV field is a character, not an endless loop")
    func quoteInsideUnquotedField() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: packageRoot.appendingPathComponent("Tests/TracesTests/Regressions/csv-quote-inside-unquoted-field.csv").path))
        let trace = try TraceReader.read(bytes: data, name: "finding.csv", format: .csv)
        // The field 6.668"09599999999 is not a number: that row is rejected, the rest read.
        #expect(trace.rejected.contains { $0.reason.contains("6.668\"09599999999") })
        #expect(trace.tracks[0].segments[0].fixes.count > 1000)
        let small = try readCSV("lat,lon,name\n53.4,-2.9,Joe \"the\" Cafe\n")
        #expect(small.tracks[0].segments[0].fixes.first?.name == "Joe \"the\" Cafe")
    }
}
