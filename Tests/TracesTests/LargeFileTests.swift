import ChildProcess
import Foundation
import Testing
import TestSupport
@testable import Traces

/// Peak resident memory of this process so far, in bytes (Linux /proc).
func peakResidentBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
    let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    return kilobytes.map { $0 * 1024 }
}

/// Writes `count` generated lines through a small buffer, so the generator itself stays small.
func writeGenerated(to path: String, header: String, footer: String, count: Int, line: (Int) -> String) throws {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var chunk = header
    for i in 0..<count {
        chunk += line(i)
        if chunk.utf8.count > 4 << 20 {
            try handle.write(contentsOf: Data(chunk.utf8))
            chunk.removeAll(keepingCapacity: true)
        }
    }
    chunk += footer
    try handle.write(contentsOf: Data(chunk.utf8))
}

/// Run by `make test-large` (STROLL_LARGE=1): a 1 GB GPX file and a
/// 10-million-row CSV file streamed in bounded memory.
@Suite("Large files stream in bounded memory", .enabled(if: ProcessInfo.processInfo.environment["STROLL_LARGE"] == "1"))
struct LargeFileTests {
    static let memoryBound = 128 << 20

    @Test("a 1 GB GPX file streams point by point, and so does its .gpx.gz")
    func largeGPX() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-large.gpx").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let count = 8_000_000
        try writeGenerated(to: path, header: "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n", footer: "</trkseg></trk></gpx>\n",
                           count: count) { i in
            "<trkpt lat=\"53.\(1_000_000 + i % 1_000_000)\" lon=\"-2.\(9_000_000 + i % 999_999)\"><ele>12.5</ele><time>2024-05-01T09:00:00Z</time><hdop>1.2</hdop><extensions><speed>1.4</speed></extensions></trkpt>\n"
        }
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(size > 1_000_000_000)
        var stream = try GPXStream(path: path)
        var points = 0
        while let event = try stream.next() {
            if case .trackPoint = event { points += 1 }
        }
        #expect(points == count)
        let peak = try #require(peakResidentBytes())
        print("large GPX: \(size) bytes, \(points) points, peak resident \(peak >> 20) MiB")
        #expect(peak < Self.memoryBound)

        // The same file gzip-compressed, as `stroll trace info` reads it: inflated chunk by chunk.
        let gz = path + ".gz"
        defer { try? FileManager.default.removeItem(atPath: gz) }
        let zipped = try await ChildProcess.run("/bin/sh", ["-c", "gzip -1 -c \"$0\" > \"$1\"", path, gz])
        try #require(zipped.status == 0, "\(zipped.reason) \(zipped.stderr)")
        let stats = try TraceStatistics.read(gz)
        #expect(stats.points == count && stats.format == .gpx)
        let peakAfter = try #require(peakResidentBytes())
        print("large GPX.gz: \(stats.points) points, peak resident \(peakAfter >> 20) MiB")
        #expect(peakAfter < Self.memoryBound)
    }

    @Test("a 10-million-row CSV file streams row by row")
    func largeCSV() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-large.csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let count = 10_000_000
        try writeGenerated(to: path, header: "time,lat,lon,accuracy\n", footer: "", count: count) { i in
            "\(1_714_554_000 + i),53.\(1_000_000 + i % 1_000_000),-2.\(9_000_000 + i % 999_999),5\n"
        }
        var stream = try CSVStream(path: path)
        var points = 0
        while let event = try stream.next() {
            if case .trackPoint = event { points += 1 }
        }
        #expect(points == count)
        let stats = try TraceStatistics.read(path)
        #expect(stats.points == count && stats.rejected.isEmpty)
        let peak = try #require(peakResidentBytes())
        print("large CSV: \(count) rows, peak resident \(peak >> 20) MiB")
        #expect(peak < Self.memoryBound)
    }
}
