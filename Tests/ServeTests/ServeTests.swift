import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import LocationSimulation
import Proximity
import Replay
import Serve
import Testing
import TestSupport
import Traces

/// A gpsd client over loopback (a blocking POSIX socket), reading lines as they come.
struct LineClient: Sendable {
    let fd: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func connect(_ endpoint: Endpoint) throws -> LineClient {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(endpoint.port).bigEndian
        address.sin_addr.s_addr = inet_addr(endpoint.host)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, status == 0 else { throw Failure(description: "cannot connect to \(endpoint): \(String(cString: strerror(errno)))") }
        return LineClient(fd: fd)
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = send(fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }
}

/// Sends `send`, then reads lines (on a thread of its own: the reads block)
/// until `enough` says so or the connection ends; closes the connection.
func readLines(_ client: LineClient, send: [String] = [], until enough: @escaping @Sendable ([String]) -> Bool) async throws -> [String] {
    for text in send { client.write(text) }
    return await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
        Thread {
            var lines: [String] = []
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !enough(lines) {
                let count = recv(client.fd, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[..<count])
                while let newline = pending.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
                    pending.removeSubrange(...newline)
                }
            }
            close(client.fd)
            continuation.resume(returning: lines)
        }.start()
    }
}

func object(_ line: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
}

/// The bundled campus loop replayed against the bundled places, in virtual time.
func campusReplay() throws -> Replay {
    let trace = try TraceReader.read(path("traces/campus-loop.gpx"))
    var places = try PlaceSet.load(fixture("CityCycleRideLocations.plist"))
    places.merge(try PlaceSet.load(fixture("lecture-theatres.json")))
    return try Replay(trace: trace, places: places)
}

func startServer(_ configuration: LiveServer.Configuration) async throws -> LiveServer {
    let replay = try campusReplay()
    let page = LivePage(map: RunMap(report: RunReport(trace: replay.trace), places: replay.places, distanceFilter: 25), title: "campus loop")
    return try await LiveServer.start(configuration, page: page, control: ReplayControl(), speed: 1)
}

@Suite("gpsd's protocol: commands and reports")
struct GPSDProtocolTests {
    @Test("commands: ?WATCH with its JSON, ?POLL, ?DEVICES, ?VERSION; anything else is an error with a printable excerpt")
    func commands() {
        #expect(GPSD.parse("?WATCH={\"enable\":true,\"json\":true}") == .watch(["enable": true, "json": true]))
        #expect(GPSD.parse("?WATCH") == .watch([:]))
        #expect(GPSD.parse(" ?POLL") == .poll && GPSD.parse("?DEVICES") == .devices && GPSD.parse("?VERSION") == .version)
        #expect(GPSD.parse("?WATCH={\"enable\":tru") == .error("Invalid WATCH: the argument is not a JSON object"))
        #expect(GPSD.parse("?FOO") == .error("Unrecognized request '?FOO'"))
        #expect(GPSD.parse("\u{1}\u{2}junk\"") == .error("Unrecognized request '??junk?'"))
    }

    @Test("TPV: mode 2 without an altitude, 3 with; 95 % errors from CoreLocation's 68 % radius; course and speed only when valid")
    func tpv() throws {
        let c = try Coordinate(latitude: 53.405, longitude: -2.966)
        let flat = object(GPSD.tpv(Location(coordinate: c, horizontalAccuracy: 10, timestamp: 1_714_564_800), device: "stroll://t"))
        #expect(flat["class"] as? String == "TPV" && flat["mode"] as? Int == 2 && flat["time"] as? String == "2024-05-01T12:00:00Z")
        #expect(flat["lat"] as? Double == 53.405 && flat["lon"] as? Double == -2.966)
        #expect(flat["track"] == nil && flat["speed"] == nil && flat["alt"] == nil)
        let eph = try #require(flat["eph"] as? Double)
        #expect(abs(eph - 10 / 1.5152 * 2.4477) < 1e-9)
        let full = object(GPSD.tpv(Location(coordinate: c, altitude: 42, horizontalAccuracy: 5, verticalAccuracy: 3, course: 90, speed: 1.4, timestamp: 1_714_564_800.5), device: "d"))
        #expect(full["mode"] as? Int == 3 && full["altHAE"] as? Double == 42 && full["track"] as? Double == 90 && full["speed"] as? Double == 1.4)
    }

    @Test("NMEA for a fix: GGA, RMC, GSA, GST, checksummed, read back by Stroll's own reader to the same fix and accuracy")
    func nmea() throws {
        let c = try Coordinate(latitude: 53.4051234, longitude: -2.9667891)
        let l = Location(coordinate: c, altitude: 12.5, horizontalAccuracy: 7, verticalAccuracy: 4, course: 181, speed: 1.2, timestamp: 1_714_564_800)
        let text = GPSD.nmea(l)
        #expect(text.split(separator: "\r\n").map { $0.prefix(6) } == ["$GPGGA", "$GPRMC", "$GPGSA", "$GPGST"])
        let trace = try TraceReader.read(bytes: Data(text.utf8), name: "live.nmea", format: .nmea)
        let fix = try #require(trace.tracks.first?.segments.first?.fixes.first)
        #expect(trace.rejected.isEmpty)
        #expect(abs(fix.coordinate.latitude - c.latitude) < 2e-8 && abs(fix.coordinate.longitude - c.longitude) < 2e-8)
        #expect(fix.time == l.timestamp && fix.elevation == 12.5)
        #expect(abs((fix.horizontalAccuracy ?? 0) - 7) < 0.01)
    }
}

@Suite("The live page")
struct LivePageTests {
    @Test("the groups are listed in the replay's order (the terminal's) whichever ranking comes first; distances do not wrap")
    func groupOrder() throws {
        let trace = try TraceReader.read(path("traces/campus-loop.gpx"))
        var places = try PlaceSet.load(fixture("CityCycleRideLocations.plist"))
        places.merge(try PlaceSet.load(fixture("lecture-theatres.json")))
        var configuration = ReplayConfiguration()
        configuration.groups = ["liverpool", "lecture-theatres"]
        let replay = try Replay(trace: trace, places: places, configuration: configuration)
        let map = RunMap(report: RunReport(trace: trace, groups: replay.groups), places: replay.places, distanceFilter: 25)
        let page = LivePage(map: map, title: "campus loop").html
        #expect(page.contains("const groupOrder = [\"liverpool\",\"lecture-theatres\"];"))
        #expect(page.contains("rankings.insertBefore(h, next[1].h);"))
        #expect(page.contains("white-space: nowrap"))
    }
}

@Suite("The live server's Swift API on ephemeral loopback ports", .serialized)
struct LiveServerTests {
    @Test("a client's session: VERSION, ?WATCH → DEVICES and WATCH, then a TPV per delivered fix, in order, exactly")
    func session() async throws {
        let server = try await startServer(LiveServer.Configuration(gpsd: Endpoint(host: "127.0.0.1", port: 0)))
        let address = try #require(server.gpsdAddress)
        #expect(address.port != 0)
        var replay = try campusReplay()
        let events = replay.run()
        let locations = events.compactMap { e -> Location? in if case .location(let l, _) = e { return l } else { return nil } }
        let client = try LineClient.connect(address)
        async let lines = readLines(client, send: ["?WATCH={\"enable\":true,\"json\":true};\n"]) { lines in
                lines.filter { $0.contains("\"class\":\"TPV\"") }.count >= locations.count
        }
        await server.waitForClients(1)
        for event in events { server.publish(event) }
        let received = try await lines
        await server.shutdown()
        #expect(received.first.map(object)?["class"] as? String == "VERSION")
        #expect(received.dropFirst().first.map(object)?["class"] as? String == "DEVICES")
        #expect(received.dropFirst(2).first.map(object)?["class"] as? String == "WATCH")
        struct TPV: Decodable { var lat: Double, lon: Double, time: String }
        // JSONDecoder, not JSONSerialization: it reads doubles exactly.
        let tpvs = received.filter { $0.contains("\"class\":\"TPV\"") }.compactMap { try? JSONDecoder().decode(TPV.self, from: Data($0.utf8)) }
        #expect(tpvs.count == locations.count)
        #expect(zip(tpvs, locations).allSatisfy { $0.lat == $1.coordinate.latitude && $0.lon == $1.coordinate.longitude && $0.time == ISO8601Time.format($1.timestamp) })
    }

    @Test("the address in use is a clear error naming the service; a free port is taken when the default is busy")
    func addressInUse() async throws {
        let first = try await startServer(LiveServer.Configuration(gpsd: Endpoint(host: "127.0.0.1", port: 0)))
        let taken = try #require(first.gpsdAddress)
        await #expect(throws: ServeError.addressInUse(service: "nmea", taken)) {
            _ = try await startServer(LiveServer.Configuration(nmea: taken))
        }
        var fallback = LiveServer.Configuration(gpsd: taken)
        fallback.gpsdFallback = true
        let second = try await startServer(fallback)
        #expect(second.gpsdAddress != nil && second.gpsdAddress != taken)
        await second.shutdown()
        await first.shutdown()
    }

    @Test("a client that watches and never reads is dropped once its 64 KiB of unsent reports are full; publishing goes on")
    func slowClientDropped() async throws {
        var configuration = LiveServer.Configuration(gpsd: Endpoint(host: "127.0.0.1", port: 0))
        configuration.clientBufferLimit = 64 * 1024
        let server = try await startServer(configuration)
        let address = try #require(server.gpsdAddress)
        let client = try LineClient.connect(address)
        defer { close(client.fd) }
        client.write("?WATCH={\"enable\":true,\"json\":true};\n")
        await server.waitForClients(1)
        let c = try Coordinate(latitude: 53.4, longitude: -2.97)
        // About 60 MB of reports: far past the kernel's socket buffers and the 64 KiB allowed.
        for k in 0..<300_000 where server.droppedClients == 0 {
            server.publish(.location(Location(coordinate: c, horizontalAccuracy: 5, timestamp: 1_714_564_800 + Double(k)), t: Double(k)))
            if k % 1000 == 0 { await Task.yield() }
        }
        #expect(server.droppedClients == 1)
        #expect(server.watchingClients == 0)
        await server.shutdown()
    }
}
