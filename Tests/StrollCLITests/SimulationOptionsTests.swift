import Testing
@testable import stroll

@Suite("The replay options batch hands to each walk")
struct SimulationOptionsTests {
    @Test("every option, given, comes back from `arguments` and parses to the same options")
    func roundTrip() throws {
        let given = ["--places", "a.json", "--places", "b.csv", "--group", "cafes", "--osm-filter", "amenity=cafe,restaurant", "--osm-filter", "university",
                     "--group-name", "food", "--name-column", "title", "--group-column", "kind",
                     "--places-sql", "SELECT * FROM cafes", "--accuracy", "100", "--distance-filter", "none",
                     "--walking-speed", "1.2", "--start", "2020-01-02T03:04:05Z", "--rate", "2.5", "--noise", "gauss-markov", "--noise-tau", "30", "--debug-truth", "--seed", "42",
                     "--environment", "urban", "--environments", "areas.geojson", "--warm-up", "ios",
                     "--regions", "r.geojson", "--region-span", "1500", "--follow", "--cluster", "--map-width", "430",
                     "--cluster-radius", "50", "--select", "Leaf", "--sort", "name", "--within", "750"]
        let parsed = try SimulationOptions.parse(given)
        let again = try SimulationOptions.parse(parsed.arguments)
        #expect(again.arguments == parsed.arguments)
        // Each option given appears in the arguments handed on.
        for option in given where option.hasPrefix("--") { #expect(parsed.arguments.contains(option), "\(option)") }
        // And every option there is was given above: a new option must be handed on too.
        let help = SimulationOptions.helpMessage(columns: 1000)
        // Options are listed one per line, each line starting with its name.
        let names = Set(help.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("--") else { return nil }
            return trimmed.split(whereSeparator: { " ,<".contains($0) }).first.map(String.init)
        })
        #expect(!names.isEmpty)
        for name in names where name != "--help" { #expect(given.contains(name), "\(name) is not handed on by `arguments`") }
        // The defaults too parse back to themselves.
        let defaults = try SimulationOptions.parse([])
        #expect(try SimulationOptions.parse(defaults.arguments).arguments == defaults.arguments)
    }
}
