// Built with the Serve trait (the default); without it this module is empty.
#if Serve
import Foundation
import Geodesy
import LocationSimulation
import NIOCore
import NIOHTTP1
import NIOPosix
import Replay
import NIOConcurrencyHelpers
import Traces

/// A host and a port to listen on (port 0: any free port).
public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (loopback); nil when it is none of these.
    public init?(parsing text: String) {
        var hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        if hostPart.isEmpty { hostPart = "127.0.0.1" }
        guard let port = Int(portPart), (0...65535).contains(port) else { return nil }
        self.init(host: String(hostPart), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why a server could not start.
public enum ServeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another program listens there (the CLI exits 69).
    case addressInUse(service: String, Endpoint)
    /// The address cannot be listened on (no such host, not allowed).
    case cannotListen(service: String, Endpoint, reason: String)

    public var description: String {
        switch self {
        case .addressInUse(let service, let endpoint): return "\(endpoint) is in use: cannot serve \(service) there (choose another with --\(service) HOST:PORT)"
        case .cannotListen(let service, let endpoint, let reason): return "cannot serve \(service) on \(endpoint): \(reason)"
        }
    }
}

/// Serves a replay live: gpsd's JSON protocol, NMEA 0183 over TCP and a web
/// page that follows the walker, each on its own address.
///
/// ``publish(_:)`` hands every replay event to the clients that asked for it.
/// Each client has a bounded queue of unsent bytes (``Configuration/clientBufferLimit``):
/// a client that stops reading is dropped, with a log line, when it would pass
/// it, so it never holds up the others nor grows memory.
public final class LiveServer: Sendable {
    public struct Configuration: Sendable {
        public var gpsd: Endpoint?
        public var nmea: Endpoint?
        public var http: Endpoint?
        /// When `gpsd` is taken, listen on a free port instead (the default address, not one asked for).
        public var gpsdFallback = false
        /// The device path clients see in `DEVICES` and `TPV`.
        public var device = "stroll://replay"
        /// Unsent bytes one client may hold before it is dropped.
        public var clientBufferLimit = 256 * 1024
        /// The longest command line a gpsd client may send.
        public var maximumCommandBytes = 4096

        public init(gpsd: Endpoint? = nil, nmea: Endpoint? = nil, http: Endpoint? = nil) {
            self.gpsd = gpsd
            self.nmea = nmea
            self.http = http
        }
    }

    enum Kind: Sendable { case gpsd, nmea, events }

    struct Client: Sendable {
        let channel: any Channel
        let kind: Kind
        var watch = GPSD.Watch()
        var pending = 0
        let peer: String

        /// Whether the client takes `TPV` reports, NMEA sentences, page events.
        var wantsJSON: Bool { kind == .gpsd && watch.enable && watch.json }
        var wantsNMEA: Bool { kind == .nmea || (kind == .gpsd && watch.enable && watch.nmea) }
        var isWatching: Bool { kind != .gpsd || watch.enable }
    }

    struct State: Sendable {
        var clients: [ObjectIdentifier: Client] = [:]
        var lastLocation: Location?
        /// The page's latest message of each kind (location, region, state, one per ranking group): what a new page is sent first.
        var pageState: [String: String] = [:]
        var pageOrder: [String] = []
        var readyWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
        var dropped = 0
        var paused = false
        var speed: Double
    }

    public let configuration: Configuration
    /// Where each service listens (the port chosen when 0 was asked for).
    public let gpsdAddress: Endpoint?
    public let nmeaAddress: Endpoint?
    public let httpAddress: Endpoint?
    let control: ReplayControl
    let page: LivePage
    let activated: Double
    let log: @Sendable (String) -> Void
    private let group: MultiThreadedEventLoopGroup
    private let listeners: [any Channel]
    /// A pthread mutex (NIO's box) rather than Synchronization's `Mutex`: on Linux
    /// ThreadSanitizer sees the ordering the former gives and reports the latter's
    /// futex-based sections as races.
    let state: NIOLockedValueBox<State>

    private init(configuration: Configuration, addresses: (Endpoint?, Endpoint?, Endpoint?), listeners: [any Channel],
                 group: MultiThreadedEventLoopGroup, control: ReplayControl, page: LivePage, speed: Double, log: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        (gpsdAddress, nmeaAddress, httpAddress) = addresses
        self.listeners = listeners
        self.group = group
        self.control = control
        self.page = page
        self.log = log
        state = NIOLockedValueBox(State(speed: speed))
        activated = Date().timeIntervalSince1970
    }

    /// Listens on every address the configuration names. `page` is the live
    /// view; `control` pauses, resumes and changes the speed of the replay
    /// that publishes here.
    public static func start(_ configuration: Configuration, page: LivePage, control: ReplayControl, speed: Double,
                             log: @escaping @Sendable (String) -> Void = { _ in }) async throws(ServeError) -> LiveServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = ServerBox()
        var listeners: [any Channel] = []
        func fail(_ error: ServeError) async -> ServeError {
            for channel in listeners { try? await channel.close() }
            try? await group.shutdownGracefully()
            return error
        }
        var addresses: [Endpoint?] = []
        for (service, endpoint, kind) in [("gpsd", configuration.gpsd, Kind.gpsd), ("nmea", configuration.nmea, .nmea), ("http", configuration.http, .events)] {
            guard var endpoint else {
                addresses.append(nil)
                continue
            }
            var channel: (any Channel)?
            do {
                channel = try await bind(endpoint, kind: kind, group: group, box: box)
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                if kind == .gpsd && configuration.gpsdFallback {
                    log("gpsd: \(endpoint) is in use; listening on a free port instead")
                    endpoint.port = 0
                    channel = try? await bind(endpoint, kind: kind, group: group, box: box)
                }
                if channel == nil { throw await fail(.addressInUse(service: service, endpoint)) }
            } catch {
                throw await fail(.cannotListen(service: service, endpoint, reason: "\(error)"))
            }
            guard let channel else { throw await fail(.cannotListen(service: service, endpoint, reason: "no channel")) }
            listeners.append(channel)
            endpoint.port = channel.localAddress?.port ?? endpoint.port
            addresses.append(endpoint)
        }
        let server = LiveServer(configuration: configuration, addresses: (addresses[0], addresses[1], addresses[2]), listeners: listeners,
                                group: group, control: control, page: page, speed: speed, log: log)
        box.server.withLockedValue { $0 = server }
        server.setPaused(false)
        return server
    }

    private static func bind(_ endpoint: Endpoint, kind: Kind, group: MultiThreadedEventLoopGroup, box: ServerBox) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // The server exists before any client can connect: listening starts after `start` returns the channel,
                    // but a connection accepted in between finds it set by then or is closed.
                    guard let server = box.server.withLockedValue({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    switch kind {
                    case .gpsd: try channel.pipeline.syncOperations.addHandler(GPSDHandler(server: server))
                    case .nmea: try channel.pipeline.syncOperations.addHandler(NMEAHandler(server: server))
                    case .events:
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(HTTPHandler(server: server))
                    }
                }
            }
            .bind(host: endpoint.host, port: endpoint.port)
            .get()
    }

    /// Stops listening and closes every client.
    public func shutdown() async {
        for channel in listeners { try? await channel.close() }
        let clients = state.withLockedValue { state in
            let all = state.clients.values.map(\.channel)
            state.clients.removeAll()
            let waiters = state.readyWaiters
            state.readyWaiters.removeAll()
            for (_, waiter) in waiters { waiter.resume() }
            return all
        }
        for channel in clients { try? await channel.close() }
        try? await group.shutdownGracefully()
    }

    // MARK: Clients

    /// Clients that receive something: gpsd watchers, NMEA and page listeners.
    public var watchingClients: Int { state.withLockedValue { $0.clients.values.filter(\.isWatching).count } }

    /// How many clients were dropped for not reading.
    public var droppedClients: Int { state.withLockedValue { $0.dropped } }

    /// Returns once `count` clients are watching (or the server shuts down).
    public func waitForClients(_ count: Int) async {
        guard count > 0 else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state -> Bool in
                if state.clients.values.filter(\.isWatching).count >= count { return true }
                state.readyWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func register(_ channel: any Channel, kind: Kind) {
        let peer = channel.remoteAddress.map { "\($0)" } ?? "a client"
        state.withLockedValue { $0.clients[ObjectIdentifier(channel)] = Client(channel: channel, kind: kind, peer: peer) }
        wakeReadyWaiters()
    }

    func unregister(_ channel: any Channel) {
        _ = state.withLockedValue { $0.clients.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Applies `?WATCH` flags; returns the client's watch after them.
    func updateWatch(_ channel: any Channel, _ flags: [String: Bool]) -> GPSD.Watch {
        let watch = state.withLockedValue { state -> GPSD.Watch in
            guard var client = state.clients[ObjectIdentifier(channel)] else { return GPSD.Watch() }
            if let v = flags["enable"] { client.watch.enable = v }
            if let v = flags["json"] { client.watch.json = v }
            if let v = flags["nmea"] { client.watch.nmea = v }
            // Enabling with neither format named means JSON, as gpsd does.
            if flags["enable"] == true && flags["json"] == nil && flags["nmea"] == nil && !client.watch.nmea { client.watch.json = true }
            state.clients[ObjectIdentifier(channel)] = client
            return client.watch
        }
        wakeReadyWaiters()
        return watch
    }

    func watch(of channel: any Channel) -> GPSD.Watch {
        state.withLockedValue { $0.clients[ObjectIdentifier(channel)]?.watch ?? GPSD.Watch() }
    }

    var lastLocation: Location? { state.withLockedValue { $0.lastLocation } }

    /// The page's current state, in order: what a newly connected page is sent.
    var pageSnapshot: [String] { state.withLockedValue { s in s.pageOrder.compactMap { s.pageState[$0] } } }

    private func wakeReadyWaiters() {
        let ready = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            let watching = state.clients.values.filter(\.isWatching).count
            var woken: [CheckedContinuation<Void, Never>] = []
            state.readyWaiters.removeAll { count, continuation in
                guard watching >= count else { return false }
                woken.append(continuation)
                return true
            }
            return woken
        }
        for continuation in ready { continuation.resume() }
    }

    // MARK: Publishing

    /// Sends one replay event to the clients that want it: a delivered fix as a
    /// gpsd `TPV` and as NMEA sentences; fixes, rankings, the map region and the
    /// end of the run to the web page.
    public func publish(_ event: ReplayEvent) {
        switch event {
        case .location(let l, let t):
            state.withLockedValue { $0.lastLocation = l }
            let tpv = GPSD.tpv(l, device: configuration.device)
            let nmea = GPSD.nmea(l)
            send(tpv) { $0.wantsJSON }
            send(nmea) { $0.wantsNMEA }
            let p = page.projector.screen(l.coordinate)
            pageEvent("location", .object([("type", .string("location")), ("t", .number(t)), ("time", .string(ISO8601Time.format(l.timestamp))),
                                           ("lat", .number(l.coordinate.latitude)), ("lon", .number(l.coordinate.longitude)),
                                           ("accuracy", .number(l.horizontalAccuracy)), ("x", .number(rounded(p.x))), ("y", .number(rounded(p.y)))]))
        case .ranking(let update, let group, let t):
            let rows = zip(update.names, update.displayDistances).prefix(10).map { JSON.array([.string($0.0), .string($0.1)]) }
            pageEvent("ranking:" + group, .object([("type", .string("ranking")), ("group", .string(group)), ("t", .number(t)),
                                                   ("changed", .bool(update.changed)), ("rows", .array(rows))]))
        case .map(let snapshot, _):
            guard let region = snapshot.region else { return }
            let c = region.center
            let corners = [(c.latitude + region.latitudeDelta / 2, c.longitude - region.longitudeDelta / 2),
                           (c.latitude - region.latitudeDelta / 2, c.longitude + region.longitudeDelta / 2)]
                .map { page.projector.screen(Coordinate(computedLatitude: $0.0, longitude: $0.1)) }
            pageEvent("region", .object([("type", .string("region")), ("x", .number(rounded(corners[0].x))), ("y", .number(rounded(corners[0].y))),
                                         ("w", .number(rounded(corners[1].x - corners[0].x))), ("h", .number(rounded(corners[1].y - corners[0].y)))]))
        case .summary:
            pageEvent("end", .object([("type", .string("end"))]))
        case .filtered, .region, .error, .pause, .resume:
            break
        }
    }

    /// The replay's speed and pause state as the page shows them.
    func setPaused(_ paused: Bool? = nil, speed: Double? = nil) {
        let message = state.withLockedValue { state -> JSON in
            if let paused { state.paused = paused }
            if let speed { state.speed = speed }
            return .object([("type", .string("state")), ("paused", .bool(state.paused)), ("speed", .number(state.speed))])
        }
        pageEvent("state", message)
    }

    private func rounded(_ v: Double) -> Double { (v * 10).rounded() / 10 }

    private func pageEvent(_ key: String, _ message: JSON) {
        let text = "data: \(message.text)\n\n"
        state.withLockedValue { state in
            if state.pageState.updateValue(text, forKey: key) == nil { state.pageOrder.append(key) }
        }
        send(text) { $0.kind == .events }
    }

    /// Writes `text` to every client `wants` selects, within each one's buffer limit.
    private func send(_ text: String, to wants: (Client) -> Bool) {
        let bytes = text.utf8.count
        var targets: [(any Channel, Kind)] = []
        var slow: [(any Channel, String)] = []
        state.withLockedValue { state in
            for (id, client) in state.clients where wants(client) {
                if client.pending + bytes > configuration.clientBufferLimit {
                    slow.append((client.channel, client.peer))
                    state.clients.removeValue(forKey: id)
                    state.dropped += 1
                } else {
                    state.clients[id]?.pending += bytes
                    targets.append((client.channel, client.kind))
                }
            }
        }
        for (channel, peer) in slow {
            log("dropped \(peer): it stopped reading (\(configuration.clientBufferLimit / 1024) KiB unsent)")
            channel.close(promise: nil)
        }
        for (channel, kind) in targets {
            let buffer = channel.allocator.buffer(string: text)
            let written: EventLoopFuture<Void> = kind == .events
                ? channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)))
                : channel.writeAndFlush(buffer)
            let id = ObjectIdentifier(channel)
            written.whenComplete { [self] _ in
                state.withLockedValue { $0.clients[id]?.pending -= bytes }
            }
        }
    }

    /// Pauses, resumes or changes the speed of the replay (from the page).
    func control(_ action: String, value: Double?) async -> Bool {
        switch action {
        case "pause":
            await control.pause()
            setPaused(true)
        case "resume":
            await control.resume()
            setPaused(false)
        case "speed":
            guard let value, value > 0, value.isFinite else { return false }
            await control.setSpeed(value)
            setPaused(speed: value)
        default:
            return false
        }
        return true
    }
}

/// Holds the server for connections accepted while it is being created.
final class ServerBox: Sendable {
    let server = NIOLockedValueBox<LiveServer?>(nil)
}
#endif
