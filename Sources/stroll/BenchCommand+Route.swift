import Foundation
import Geodesy
import LocationSimulation
import Streets
import Traces

extension BenchCommand {
    /// Builds --osm's walking network, then times --places route queries between random nodes, or
    /// the routes between --pairs' pairs (RouteBenchmark).
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
        let result: RouteBenchmark.Result
        if let pairs {
            let listed: [(from: Coordinate, to: Coordinate)]
            do {
                listed = try Self.pairs(in: pairs, on: network)
            } catch {
                progress.clear()
                throw error
            }
            progress.phase { "routing the \(listed.count) pairs of \((pairs as NSString).lastPathComponent)" }
            result = RouteBenchmark.run(network, pairs: listed)
        } else {
            progress.phase { "routing \(count) pairs" }
            var generator = SeededGenerator(seed: seed)
            result = RouteBenchmark.run(network, queries: count, using: &generator)
        }
        let queries = result.samples.count
        progress.clear()
        let sorted = result.samples.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)] }
        let mean = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
        let s = network.summary
        if json {
            print(JSON.object([
                ("variant", .string("route")), ("osm", .string(osm)), ("nodes", .int(s.nodes)), ("edges", .int(s.edges)),
                ("build_ms", .number(buildMs)), ("peak_rss_mib", .optional(peak)), ("queries", .int(queries)), ("routes", .int(result.routes)),
                ("unreachable", .int(result.unreachable)), ("p50_us", .number(percentile(0.5))), ("p99_us", .number(percentile(0.99))),
                ("mean_us", .number(mean)), ("checksum", .number(result.checksum)),
            ]).text)
        } else {
            print(String(format: "route over %@: %d walkable ways, %d nodes, %d edges, %.1f km; built in %.1f ms, peak resident %@",
                         (osm as NSString).lastPathComponent, s.walkableWays, s.nodes, s.edges, s.length / 1000, buildMs,
                         peak.map { String(format: "%.1f MiB", $0) } ?? "unknown"))
            print(String(format: "%d queries (%d routes, %d without a walkable path): p50 %.1f µs, p99 %.1f µs, mean %.1f µs",
                         queries, result.routes, result.unreachable, percentile(0.5), percentile(0.99), mean))
        }
    }

    /// The pairs of a --pairs file: a line each, FROM and TO separated by a tab; an unreadable
    /// file exits 66, a line that is not a pair or names no point of `network` exits 65.
    static func pairs(in path: String, on network: StreetNetwork) throws -> [(from: Coordinate, to: Coordinate)] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw failure("error: cannot read --pairs \(path): \(ErrorWords.reason(error))", StrollExit.missingInput)
        }
        var pairs: [(from: Coordinate, to: Coordinate)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2 else {
                throw failure("error: \(path) line \(index + 1): not FROM and TO separated by a tab", StrollExit.badInput)
            }
            do {
                pairs.append((try network.coordinate(of: fields[0]), try network.coordinate(of: fields[1])))
            } catch {
                throw failure("error: \(path) line \(index + 1): \(error.description)", StrollExit.badInput)
            }
        }
        guard !pairs.isEmpty else { throw failure("error: \(path) holds no pair", StrollExit.badInput) }
        return pairs
    }

    /// The process's peak resident set (VmHWM in /proc/self/status), in MiB; nil where there is none.
    static func peakResidentMiB() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kB = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kB / 1024
    }
}
