// Built with the Serve trait (the default); without it these tests are left out.
#if Serve
import Foundation
import Geodesy
import LocationSimulation
import NIOCore
import NIOPosix
import Proximity
import Replay
import Serve
import Testing
import TestSupport
import Traces

/// A gpsd client over loopback, reading lines as they come.
struct LineClient {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    static func connect(_ endpoint: Endpoint) async throws -> LineClient {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: endpoint.host, port: endpoint.port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return LineClient(channel: channel)
    }
}

/// Reads lines until `enough` says so or the connection ends.
func readLines(_ client: LineClient, send: [String] = [], until enough: @escaping ([String]) -> Bool) async throws -> [String] {
    try await client.channel.executeThenClose { inbound, outbound in
        for text in send { try await outbound.write(ByteBuffer(string: text)) }
        var lines: [String] = []
        var pending = ""
        for try await var buffer in inbound {
            pending += buffer.readString(length: buffer.readableBytes) ?? ""
            // "\r\n" is one Character in Swift: look for either.
            while let newline = pending.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) {
                lines.append(String(pending[..<newline]).trimmingCharacters(in: .whitespacesAndNewlines))
                pending = String(pending[pending.index(after: newline)...])
            }
            if enough(lines) { break }
        }
        return lines
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
        let client = try await LineClient.connect(address)
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
        let client = try await LineClient.connect(address)
        try await client.channel.executeThenClose { _, outbound in
            try await outbound.write(ByteBuffer(string: "?WATCH={\"enable\":true,\"json\":true};\n"))
            await server.waitForClients(1)
            let c = try Coordinate(latitude: 53.4, longitude: -2.97)
            // About 60 MB of reports: far past the kernel's socket buffers and the 64 KiB allowed.
            for k in 0..<300_000 where server.droppedClients == 0 {
                server.publish(.location(Location(coordinate: c, horizontalAccuracy: 5, timestamp: 1_714_564_800 + Double(k)), t: Double(k)))
                if k % 1000 == 0 { await Task.yield() }
            }
        }
        #expect(server.droppedClients == 1)
        #expect(server.watchingClients == 0)
        await server.shutdown()
    }
}
#endif
