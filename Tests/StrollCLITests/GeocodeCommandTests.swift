import Foundation
import Testing
import TestSupport

@Suite("stroll geocode")
struct GeocodeCommandTests {
    let monaco = fixture("osm/monaco-latest.osm.pbf")

    @Test("--reverse --json: one placemark with the contract's keys, in order")
    func reverse() async throws {
        let run = try await StrollBinary.run(["geocode", "--osm", monaco, "--reverse", "43.7384,7.4246", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["osm"] as? String == "way/94400143")
        let keys = run.stdout.split(separator: "\"").enumerated().compactMap { $0.offset % 2 == 1 ? String($0.element) : nil }
            .filter { ["name", "thoroughfare", "subThoroughfare", "locality", "postalCode", "country", "isoCountryCode", "lat", "lon", "osm"].contains($0) }
        #expect(keys == ["name", "thoroughfare", "subThoroughfare", "locality", "postalCode", "country", "isoCountryCode", "lat", "lon", "osm"])
    }

    @Test("an address: every match, best first; no match: an empty list and exit 0")
    func forward() async throws {
        let found = try await StrollBinary.run(["geocode", "--osm", monaco, "27 BOULEVARD DE SUISSE", "--json"])
        #expect(found.status == 0 && found.stdout.contains("\"osm\":\"way/94400143\""), "\(found.stderr)")
        let none = try await StrollBinary.run(["geocode", "--osm", monaco, "1 Rue Nulle Part", "--json"])
        #expect(none.status == 0 && none.stdout == "[]\n")
        let text = try await StrollBinary.run(["geocode", "--osm", monaco, "27 boulevard de suisse"])
        #expect(text.status == 0 && text.stdout.hasPrefix("way/94400143\tCroix-Rouge monégasque, 27 Boulevard de Suisse, 98000 Monte-Carlo, Monaco\t"))
    }

    @Test("a negative latitude is a value of --reverse, not an option")
    func negativeLatitude() async throws {
        let run = try await StrollBinary.run(["geocode", "--osm", monaco, "--reverse", "-33.86,151.21", "--json"])
        #expect(run.status == 0 && run.stdout == "[]\n", "\(run.stderr)")
    }

    @Test("exit codes: 64 usage, 65 bad input, 66 a missing extract")
    func exitCodes() async throws {
        #expect(try await StrollBinary.run(["geocode", "--osm", monaco]).status == 64)
        #expect(try await StrollBinary.run(["geocode", "--osm", monaco, "--reverse", "1,2", "an address"]).status == 64)
        #expect(try await StrollBinary.run(["geocode", "--osm", monaco, "--reverse", "91,2"]).status == 65)
        #expect(try await StrollBinary.run(["geocode", "--osm", monaco, "--reverse", "north"]).status == 65)
        #expect(try await StrollBinary.run(["geocode", "--osm", monaco, " ,; "]).status == 65)
        let missing = try await StrollBinary.run(["geocode", "--osm", "/nonexistent/monaco.osm.pbf", "1 Rue"])
        #expect(missing.status == 66 && missing.stderr.contains("/nonexistent/monaco.osm.pbf: no such file"))
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("geocode-\(UUID().uuidString).osm").path
        try "<osm version=\"0.6\"><node id=\"1\" lat=\"95\" lon=\"2\"/></osm>".write(toFile: bad, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let notOSM = try await StrollBinary.run(["geocode", "--osm", bad, "1 Rue"])
        #expect(notOSM.status == 65 && notOSM.stderr.contains("\(bad): line 1: <node> with lat=\"95\": not a coordinate"), "\(notOSM.stderr)")
        try "<osm version=\"0.6\"><node id=\"1\" lat=\"45\" lon=\"2\"><tag k=\"addr:housenumber\" v=\"3\"/></node></osm>"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let noAddresses = try await StrollBinary.run(["geocode", "--osm", bad, "--reverse", "45,2"])
        #expect(noAddresses.status == 65 && noAddresses.stderr.contains("no addresses"), "\(noAddresses.stderr)")
    }

    @Test("standard input: one answer a line, a bad line null and exit 65")
    func manyLookups() async throws {
        let run = try await StrollBinary.run(["geocode", "--osm", monaco, "--reverse", "-", "--json"], stdin: "43.7384,7.4246\nnowhere\n0,0\n")
        #expect(run.status == 65)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[1] == "null" && lines[2] == "[]")
        #expect(run.stderr.contains("stdin:2:"))
        let forward = try await StrollBinary.run(["geocode", "--osm", monaco, "-", "--json"], stdin: "27 boulevard de suisse\n")
        #expect(forward.status == 0 && forward.stdout.contains("way/94400143"))
        #expect(try await StrollBinary.run(["geocode", "--osm", monaco, "-"], stdin: "x\n").status == 64)
    }
}
