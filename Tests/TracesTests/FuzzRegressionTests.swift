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

    @Test("a KMZ member named with bytes that are not UTF-8 and trailing slashes is a clear error, not a trap")
    func kmzMemberNameNotUTF8() throws {
        // The central directory names its only member "doc\u{A3}//" (0xA3 alone is not UTF-8);
        // choosing the member read its extension through Foundation, which trapped on it.
        let path = packageRoot.appendingPathComponent("Tests/TracesTests/Regressions/kmz-member-name-trap.kmz").path
        let error = readError { () throws(TraceError) in try TraceReader.read(path) }
        #expect(error?.file == path)
        #expect(error?.reason.contains("no KML") == true)
        #expect(error?.reason.contains("doc") == true)
    }
}
