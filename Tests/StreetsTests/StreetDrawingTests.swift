import Geodesy
import Streets
import Testing

@Suite("The walking network drawn on a map: its lines within a box, by kind")
struct StreetDrawingTests {
    @Test("kinds from the highway tag: steps, paths (footway, path, cycleway, track, …), streets")
    func kinds() {
        #expect(WalkingRules.kind(["highway": "steps"]) == .steps)
        for highway in ["footway", "path", "cycleway", "bridleway", "track", "corridor"] { #expect(WalkingRules.kind(["highway": highway]) == .path) }
        for highway in ["residential", "pedestrian", "service", "primary", "living_street"] { #expect(WalkingRules.kind(["highway": highway]) == .street) }
    }

    @Test("every walkable edge in a box around the whole extract, each with its kind and name; a box around the island holds it alone; an empty box none")
    func linesWithinABox() throws {
        let network = try Block.network()
        let all = network.lines(south: 49.99, west: 7.99, north: 50.02, east: 8.02)
        #expect(all.count == network.summary.edges)
        #expect(all.contains { $0.kind == .street && $0.name == "High Street" })
        #expect(all.contains { $0.kind == .steps })
        #expect(all.contains { $0.kind == .path })
        #expect(all.allSatisfy { $0.coordinates.count >= 2 })
        let island = network.lines(south: 50.009, west: 8.0095, north: 50.0105, east: 8.0115)
        #expect(island.count == 1)
        #expect(island.first?.coordinates.map(\.longitude) == [8.010, 8.011])
        // A box that only a long edge's middle crosses still finds it: edges are found by their bounding boxes.
        let between = network.lines(south: 50.0004, west: 8.0015, north: 50.0006, east: 8.0016)
        #expect(between.contains { $0.coordinates.count == 2 && Set($0.coordinates.map(\.longitude)) == [8.001, 8.002] })
        #expect(network.lines(south: 10, west: 10, north: 11, east: 11).isEmpty)
        #expect(network.lines(south: 50.01, west: 8.02, north: 50.0, east: 8.0).isEmpty)
    }
}
