import Foundation
import LocationSimulation
import Streets
import Traces

extension BenchCommand {
    /// Builds --osm's walking network, then times --places route queries (RouteBenchmark).
    func route() throws {
        guard let osm else { throw StrollExit.usage }
        progress.phase { "building the walking network of \((osm as NSString).lastPathComponent)" }
        let clock = ContinuousClock()
        let began = clock.now
        let network: StreetNetwork
        do {
            network = try StreetNetwork.load(osm)
        } catch {
            progress.clear()
            throw failure("error: \(error.description)", error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput)
        }
        let took = clock.now - began
        let buildMs = Double(took.components.seconds) * 1e3 + Double(took.components.attoseconds) / 1e15
        let peak = Self.peakResidentMiB()
        progress.phase { "routing \(count) pairs" }
        var generator = SeededGenerator(seed: seed)
        let result = RouteBenchmark.run(network, queries: count, using: &generator)
        progress.clear()
        let sorted = result.samples.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)] }
        let mean = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
        let s = network.summary
        if json {
            print(JSON.object([
                ("variant", .string("route")), ("osm", .string(osm)), ("nodes", .int(s.nodes)), ("edges", .int(s.edges)),
                ("build_ms", .number(buildMs)), ("peak_rss_mib", .optional(peak)), ("queries", .int(count)), ("routes", .int(result.routes)),
                ("unreachable", .int(result.unreachable)), ("p50_us", .number(percentile(0.5))), ("p99_us", .number(percentile(0.99))),
                ("mean_us", .number(mean)), ("checksum", .number(result.checksum)),
            ]).text)
        } else {
            print(String(format: "route over %@: %d walkable ways, %d nodes, %d edges, %.1f km; built in %.1f ms, peak resident %@",
                         (osm as NSString).lastPathComponent, s.walkableWays, s.nodes, s.edges, s.length / 1000, buildMs,
                         peak.map { String(format: "%.1f MiB", $0) } ?? "unknown"))
            print(String(format: "%d queries (%d routes, %d without a walkable path): p50 %.1f µs, p99 %.1f µs, mean %.1f µs",
                         count, result.routes, result.unreachable, percentile(0.5), percentile(0.99), mean))
        }
    }

    /// The process's peak resident set (VmHWM in /proc/self/status), in MiB; nil where there is none.
    static func peakResidentMiB() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kB = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kB / 1024
    }
}
