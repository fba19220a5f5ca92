import Benchmark
import Foundation
import Geodesy
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

/// The same walk as CSV, with the same times (a new day every 86 400 points,
/// so that no row goes back in time and every row is read as a fix).
func generatedCSV(bytes target: Int) -> String {
    var out = "time,latitude,longitude,elevation,accuracy\n"
    var i = 0
    while out.utf8.count < target {
        let day = 1 + i / 86400
        out += String(format: "2024-%02d-%02dT%02d:%02d:%02dZ,%.7f,%.7f,%.1f,5\n", 1 + (day / 28) % 12, 1 + day % 28, (i / 3600) % 24, (i / 60) % 60, i % 60,
                      53.4 + 0.01 * sin(Double(i) / 5000), -2.97 + 0.01 * cos(Double(i) / 7000), 20 + Double(i % 50) * 0.1)
        i += 1
    }
    return out
}

func registerTraceParsing() {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-bench")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let gpxPath = directory.appendingPathComponent("walk-50mb.gpx").path
    let csvPath = directory.appendingPathComponent("walk-50mb-dated.csv").path    // dated: no row goes back in time
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

// MARK: Every input format, beside GPSBabel

/// The generated walk as a trace: `count` fixes a second apart with elevation and accuracy.
func generatedTrace(points count: Int) -> Trace {
    var fixes: [Fix] = []
    fixes.reserveCapacity(count)
    for i in 0..<count {
        guard let c = try? Coordinate(latitude: 53.4 + 0.01 * sin(Double(i) / 5000), longitude: -2.97 + 0.01 * cos(Double(i) / 7000)) else { continue }
        fixes.append(Fix(coordinate: c, time: 1_704_067_200 + Double(i), elevation: 20 + Double(i % 50) * 0.1, horizontalAccuracy: 5, hdop: 1))
    }
    return Trace(format: .gpx, name: "generated", tracks: [Track(name: "generated", segments: [Segment(fixes: fixes)])])
}

/// The walk in GeoLife's `.plt` layout (Stroll writes no PLT; this is the export's shape).
func generatedPLT(_ trace: Trace) -> String {
    var out = "Geolife trajectory\nWGS 84\nAltitude is in Feet\nReserved 3\n0,2,255,My Track,0,0,2,8421376\n0\n"
    for fix in trace.replaySegments.flatMap(\.fixes) {
        guard let t = fix.time else { continue }
        let days = t / 86400 + 25569
        let date = Date(timeIntervalSince1970: t)
        let stamp = ISO8601DateFormatter().string(from: date)
        out += String(format: "%.7f,%.7f,0,%.0f,%.10f,", fix.coordinate.latitude, fix.coordinate.longitude, (fix.elevation ?? 0) / 0.3048, days)
        out += "\(stamp.prefix(10)),\(stamp.dropFirst(11).prefix(8))\n"
    }
    return out
}

/// Runs a shell command and waits (the benchmark thread, not a test's pool).
func shell(_ command: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
}

func registerFormatReading() {
    let count = 100_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-bench-formats")
    let hasGPSBabel = FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel")
    // (file name, GPSBabel's input format or nil when it reads no such file, how GPSBabel is fed)
    let formats: [(String, String?)] = [
        ("walk.gpx", "gpx"), ("walk.kml", "kml"), ("walk.kmz", nil), ("walk.tcx", "gtrnctr"), ("walk.geojson", "geojson"),
        ("walk.nmea", "nmea"), ("walk.csv", "unicsv"), ("walk.plt", nil), ("walk.gpx.gz", "gpx"),
    ]
    let setup: @Sendable () throws -> Void = {
        guard !FileManager.default.fileExists(atPath: directory.appendingPathComponent("walk.gpx.gz").path) else { return }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let trace = generatedTrace(points: count)
        for (name, _) in formats where name != "walk.gpx.gz" && name != "walk.plt" {
            guard let format = TraceWriter.OutputFormat(fileName: name) else { continue }
            try TraceWriter.data(trace, as: format).write(to: directory.appendingPathComponent(name))
        }
        try generatedPLT(trace).write(to: directory.appendingPathComponent("walk.plt"), atomically: true, encoding: .utf8)
        try shell("gzip -c '\(directory.appendingPathComponent("walk.gpx").path)' > '\(directory.appendingPathComponent("walk.gpx.gz").path)'")
    }
    for (name, babel) in formats {
        let file = directory.appendingPathComponent(name).path
        Benchmark("Read \(name), \(count / 1000)k points (Stroll, streamed)",
                  configuration: .init(metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(20), maxIterations: 10, setup: setup)) { benchmark in
            for _ in benchmark.scaledIterations {
                var stream = try TraceReader.stream(file)
                var points = 0
                while let event = try stream.next() {
                    if case .trackPoint = event { points += 1 }
                }
                precondition(points == count, "\(name): \(points) points, not \(count)")
                blackHole(points)
            }
        }
        guard hasGPSBabel, let babel else { continue }
        // GPSBabel reads no gzip: it is fed the inflated stream, as a user would.
        let command = name.hasSuffix(".gz")
            ? "gzip -dc '\(file)' | gpsbabel -i \(babel) -f - -o gpx -F /dev/null"
            : "gpsbabel -i \(babel) -f '\(file)' -o gpx -F /dev/null"
        Benchmark("Read \(name), \(count / 1000)k points (GPSBabel to GPX, wall)",
                  configuration: .init(metrics: [.wallClock], maxDuration: .seconds(20), maxIterations: 5, setup: setup)) { benchmark in
            for _ in benchmark.scaledIterations { try shell(command) }
        }
    }
}
