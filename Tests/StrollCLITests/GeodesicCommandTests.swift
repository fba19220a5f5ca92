import Foundation
import Testing
import TestSupport
@testable import stroll

@Suite("stroll geodesic inverse")
struct GeodesicCommandTests {
    @Test("the command answers good lines, names bad ones by number and exits 65")
    func commandExitCode() async throws {
        let run = try await StrollBinary.run(["geodesic", "inverse"], stdin: "53.4 -2.97 53.41 -2.96\nnot numbers\n0 0 0 90\n")
        #expect(run.status == 65)
        #expect(run.stdout.split(separator: "\n").count == 2)
        #expect(run.stderr.contains("stdin:2:"))
        #expect(run.stdout.hasSuffix("90.0 90.0 10018754.171394622\n"))
    }

    @Test("all good lines exit 0")
    func allGood() async throws {
        let run = try await StrollBinary.run(["geodesic", "inverse"], stdin: "0 0 0 0\r\n10 10 -10 -170\n")
        #expect(run.status == 0, "\(run.stderr)")
        // GeographicLib 2.1 gives 180 180 0 for coincident points on the equator, and -0 -180 for this antipode.
        #expect(run.stdout == "180.0 180.0 0.0\n-0.0 -180.0 20003931.458625447\n")
    }
}
