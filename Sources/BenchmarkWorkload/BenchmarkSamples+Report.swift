import Foundation
import Traces

extension BenchmarkSamples {
    /// The run as `stroll bench --json` prints it (the command-line contract's
    /// keys): the variant, places, updates, p50, p99 and mean in µs, updates
    /// per second, the set-up, bytes per place, the checksum and the threads.
    public func json(variant: String, places: Int, threads: Int) -> JSON {
        .object([("variant", .string(variant)), ("places", .int(places)), ("updates", .int(samples.count)),
                 ("p50_us", .number(percentile(0.5))), ("p99_us", .number(percentile(0.99))), ("mean_us", .number(mean)),
                 ("updates_per_s", .number(1e6 / mean)), ("build_ms", .number(buildMs)),
                 ("bytes_per_place", .number(bytesPerPlace)), ("checksum", .number(checksum)), ("threads", .int(threads))]
                + (indexMs.map { [("index_ms", JSON.number($0))] } ?? [])
                + (parts.isEmpty ? [] : [("parts", JSON.object(parts.map { name, values in
                    (name, .object([("p50_us", .number(Self.percentile(0.5, of: values))), ("p99_us", .number(Self.percentile(0.99, of: values)))]))
                }))]))
    }

    /// The run as one line for a reader.
    public func line(variant: String, places: Int, threads: Int) -> String {
        "\(variant) over \(places) places, \(samples.count) updates: "
            + String(format: "p50 %.2f µs, p99 %.2f µs, mean %.2f µs, %.0f updates/s; index built in %.1f ms (%.0f bytes/place)",
                     percentile(0.5), percentile(0.99), mean, 1e6 / mean, buildMs, bytesPerPlace)
            + (indexMs.map { String(format: "; the index alone %.1f ms", $0) } ?? "") + (threads > 1 ? "; \(threads) threads" : "")
            + (parts.isEmpty ? "" : "\n  parts (p50, p99 µs): " + parts.map { name, values in
                String(format: "%@ %.2f, %.2f", name, Self.percentile(0.5, of: values), Self.percentile(0.99, of: values))
            }.joined(separator: "; "))
    }
}
