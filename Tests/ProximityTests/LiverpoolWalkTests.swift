import Foundation
import Testing
import TestSupport
import LocationSimulation
@testable import Proximity

/// Expected rankings from an independent replay in Python with GeographicLib (Expected/make_expected.py).
struct ExpectedWalk: Decodable, Sendable {
    struct Change: Decodable, Sendable { let t: Double; let nearest: String }
    struct Sample: Decodable, Sendable { let index: Int; let t: Double; let order: [String]; let distances: [Double] }
    struct Group: Decodable, Sendable {
        let orderChanges: Int
        let nearestChanges: [Change]
        let samples: [Sample]
        let moveCounts: [Int]
    }
    let delivered: Int
    let groups: [String: Group]

    static let all: [String: ExpectedWalk] = {
        guard let url = Bundle.module.url(forResource: "Expected/expected-rankings", withExtension: "json"),
              let data = try? Data(contentsOf: url) else { return [:] }
        return (try? JSONDecoder().decode([String: ExpectedWalk].self, from: data)) ?? [:]
    }()
}

@Suite("Bundled Liverpool walks rank as an independent computation says")
struct LiverpoolWalkTests {
    static let walks = ["lime-street-to-campus", "pier-head-to-guild", "campus-loop", "bold-street-long-stop"]

    @Test("nearest changes, order changes, sampled orders and distances, move counts", arguments: walks)
    func walk(name: String) throws {
        let expected = try #require(ExpectedWalk.all[name])
        let (delivered, coffee, theatres) = try rankWalk(name)
        #expect(delivered.count == expected.delivered)
        let t0 = try #require(delivered.first?.timestamp)
        for (group, updates) in [("liverpool", coffee), ("lecture-theatres", theatres)] {
            let want = try #require(expected.groups[group])
            #expect(updates.dropFirst().filter(\.changed).count == want.orderChanges, "\(group)")
            var nearest: [(Double, String)] = []
            for (k, u) in updates.enumerated() where k == 0 || u.nearest != updates[k - 1].nearest {
                nearest.append((delivered[k].timestamp - t0, u.nearest ?? ""))
            }
            #expect(nearest.map(\.1) == want.nearestChanges.map(\.nearest), "\(group)")
            #expect(zip(nearest, want.nearestChanges).allSatisfy { abs($0.0 - $1.t) < 1e-6 }, "\(group) times")
            for sample in want.samples {
                let u = updates[sample.index]
                #expect(u.order == sample.order, "\(group) at delivered fix \(sample.index)")
                #expect(zip(u.distances, sample.distances).allSatisfy { abs($0 - $1) < 1e-6 }, "\(group) distances at \(sample.index)")
            }
            #expect(updates.dropFirst().map(\.moves.count) == want.moveCounts, "\(group) minimal moves")
        }
    }

    @Test("Lime Street to campus: the nearest coffee house goes Leaf, Taste Buds, 07 Cafe Bar, then Costa Coffee")
    func limeStreetStory() throws {
        let (_, coffee, _) = try rankWalk("lime-street-to-campus")
        var sequence: [String] = []
        for u in coffee where sequence.last != u.names.first { sequence.append(u.names.first ?? "") }
        #expect(sequence == ["Leaf", "Taste Buds", "07 Cafe Bar", "Costa Coffee"])
        // The first ranking lists everyone as inserted and moves nothing.
        #expect(coffee[0].changed && coffee[0].moves.isEmpty && Set(coffee[0].inserted) == Set(coffee[0].order))
    }
}
