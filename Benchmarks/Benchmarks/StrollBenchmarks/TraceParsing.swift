import Benchmark
import Foundation
import Traces

/// A generated GPX walk of about `bytes` bytes: one track point a second around
/// Liverpool with elevation, time and HDOP, the shape of a phone recording.
/// Benchmarks/compare/parse_gpxpy.py writes the same file for gpxpy.
func generatedGPX(bytes target: Int) -> String {
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Stroll benchmark\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><name>generated</name><trkseg>\n"
    var i = 0
    while out.utf8.count < target {
        let lat = 53.4 + 0.01 * sin(Double(i) / 5000)
        let lon = -2.97 + 0.01 * cos(Double(i) / 7000)
        let day = 1 + i / 86400
        out += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><ele>%.1f</ele><time>2024-%02d-%02dT%02d:%02d:%02dZ</time><hdop>1.2</hdop></trkpt>\n",
                      lat, lon, 20 + Double(i % 50) * 0.1, 1 + (day / 28) % 12, 1 + day % 28, (i / 3600) % 24, (i / 60) % 60, i % 60)
        i += 1
    }
    return out + "</trkseg></trk>\n</gpx>\n"
}

/// The same walk as CSV.
func generatedCSV(bytes target: Int) -> String {
    var out = "time,latitude,longitude,elevation,accuracy\n"
    var i = 0
    while out.utf8.count < target {
        out += String(format: "2024-01-01T%02d:%02d:%02dZ,%.7f,%.7f,%.1f,5\n", (i / 3600) % 24, (i / 60) % 60, i % 60,
                      53.4 + 0.01 * sin(Double(i) / 5000), -2.97 + 0.01 * cos(Double(i) / 7000), 20 + Double(i % 50) * 0.1)
        i += 1
    }
    return out
}

func registerTraceParsing() {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-bench")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let gpxPath = directory.appendingPathComponent("walk-50mb.gpx").path
    let csvPath = directory.appendingPathComponent("walk-50mb.csv").path
    let size = 50_000_000

    Benchmark("Parse GPX 50 MB (streamed, MB/s = throughput x 50)",
              configuration: .init(metrics: [.wallClock, .throughput, .peakMemoryResident], maxDuration: .seconds(30), maxIterations: 10,
                                   setup: {
                                       if !FileManager.default.fileExists(atPath: gpxPath) {
                                           try generatedGPX(bytes: size).write(toFile: gpxPath, atomically: true, encoding: .utf8)
                                       }
                                   })) { benchmark in
        for _ in benchmark.scaledIterations {
            var stream = try GPXStream(path: gpxPath)
            var points = 0
            while let event = try stream.next() {
                if case .trackPoint = event { points += 1 }
            }
            blackHole(points)
        }
    }

    Benchmark("Parse CSV 50 MB (streamed, MB/s = throughput x 50)",
              configuration: .init(metrics: [.wallClock, .throughput, .peakMemoryResident], maxDuration: .seconds(30), maxIterations: 10,
                                   setup: {
                                       if !FileManager.default.fileExists(atPath: csvPath) {
                                           try generatedCSV(bytes: size).write(toFile: csvPath, atomically: true, encoding: .utf8)
                                       }
                                   })) { benchmark in
        for _ in benchmark.scaledIterations {
            var stream = try CSVStream(path: csvPath)
            var points = 0
            while let event = try stream.next() {
                if case .trackPoint = event { points += 1 }
            }
            blackHole(points)
        }
    }
}
