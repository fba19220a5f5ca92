import Foundation
import Traces

/// What a place source holds, as `stroll places info` reports it: places per
/// group, their bounds, and what was skipped and why.
public struct PlaceStatistics: Sendable {
    /// The number of places read.
    public var count: Int
    /// Each group with its number of places, in the set's group order.
    public var groups: [(name: String, count: Int)]
    /// The places' bounds; nil without places.
    public var bounds: (minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double)?
    /// The reasons entries were skipped, with the digits of each reason written
    /// as `N` so that alike skips count together, in the order first met.
    public var skipped: [(reason: String, count: Int)]
    /// Every skipped entry with its own reason.
    public var rejected: [PlaceRejection]

    /// The statistics of a set of places.
    public init(_ set: PlaceSet) {
        var counts: [String: Int] = [:]
        for p in set.places { counts[p.group, default: 0] += 1 }
        count = set.places.count
        groups = set.groups.map { ($0, counts[$0] ?? 0) }
        let lats = set.places.map(\.coordinate.latitude), lons = set.places.map(\.coordinate.longitude)
        if let minLat = lats.min(), let maxLat = lats.max(), let minLon = lons.min(), let maxLon = lons.max() {
            bounds = (minLat, minLon, maxLat, maxLon)
        }
        skipped = []
        for r in set.rejected {
            let reason = r.reason.replacingOccurrences(of: "[0-9]+", with: "N", options: .regularExpression)
            if let k = skipped.firstIndex(where: { $0.reason == reason }) { skipped[k].count += 1 } else { skipped.append((reason, 1)) }
        }
        rejected = set.rejected
    }

    /// The statistics as `stroll places info --json` prints them (the command-line contract's keys).
    public var json: JSON {
        let box: JSON = bounds.map {
            .object([("minLat", .number($0.minLatitude)), ("minLon", .number($0.minLongitude)),
                     ("maxLat", .number($0.maxLatitude)), ("maxLon", .number($0.maxLongitude))])
        } ?? .null
        return .object([("count", .int(count)), ("groups", .object(groups.map { ($0.name, .int($0.count)) })), ("bounds", box),
                        ("skipped", .array(skipped.map { .object([("reason", .string($0.reason)), ("count", .int($0.count))]) }))])
    }

    /// The statistics as a table for a reader, every skipped entry with its reason.
    public var table: String {
        var lines = ["places      \(count)"]
        for g in groups { lines.append("  \(g.name): \(g.count)") }
        if let b = bounds { lines.append("bounds      \(b.minLatitude), \(b.minLongitude) to \(b.maxLatitude), \(b.maxLongitude)") }
        lines.append("skipped     \(rejected.count)")
        for r in rejected { lines.append("  \(r.entry): \(r.reason)") }
        return lines.joined(separator: "\n")
    }
}
