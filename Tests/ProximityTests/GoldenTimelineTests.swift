import Foundation
import Testing
import TestSupport
@testable import Proximity

@Suite("Golden timelines")
struct GoldenTimelineTests {
    @Test("a recorded replay verifies against itself and a changed one names its first divergence")
    func recordAndVerify() throws {
        let (delivered, coffee, _) = try rankWalk("pier-head-to-guild")
        var golden = GoldenTimeline(about: "pier-head-to-guild, liverpool")
        let t0 = delivered[0].timestamp
        for (l, u) in zip(delivered, coffee) { golden.record(u, group: "liverpool", t: l.timestamp - t0) }
        #expect(golden.entries.count == 1 + coffee.dropFirst().filter(\.changed).count)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString).json").path
        try golden.write(to: file)
        let back = try GoldenTimeline.read(file)
        #expect(back == golden)
        #expect(back.firstDivergence(from: golden) == nil)
        var altered = golden
        altered.entries[3].order.swapAt(0, 1)
        let message = try #require(golden.firstDivergence(from: altered, names: ["liverpool-3": "Bagels"]))
        #expect(message.hasPrefix("change 4 at t="))
        #expect(message.contains("row 1 should be"))
        var shorter = golden
        shorter.entries.removeLast()
        #expect(golden.firstDivergence(from: shorter)?.contains("missing") == true)
    }
}
