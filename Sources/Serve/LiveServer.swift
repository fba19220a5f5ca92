import Foundation
import Geodesy
import LocationSimulation
import Replay
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
/// One thread polls every socket (POSIX `poll`, non-blocking sockets): it
/// accepts clients, reads their commands and requests, and writes what is
/// queued for them. ``publish(_:)`` queues every replay event for the clients
/// that asked for it and wakes that thread. Each client has a bounded queue of
/// unsent bytes (``Configuration/clientBufferLimit``): a client that stops
/// reading is dropped, with a log line, when it would pass it, so it never
/// holds up the others nor grows memory.
public final class LiveServer: Sendable {
    /// What the server listens on and serves: the gpsd, NMEA and HTTP endpoints and the device it claims to be.
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
        /// The longest HTTP request head the web view reads.
        public var maximumRequestBytes = 16 * 1024

        public init(gpsd: Endpoint? = nil, nmea: Endpoint? = nil, http: Endpoint? = nil) {
            self.gpsd = gpsd
            self.nmea = nmea
            self.http = http
        }
    }

    /// What a connection is: a gpsd client, an NMEA listener, an HTTP request
    /// not yet answered, or the page's event stream.
    enum Kind: Sendable { case gpsd, nmea, http, events }

    struct Client: Sendable {
        let fd: Int32
        /// Which connection this is, counted from 1: a socket number is reused.
        let id: Int
        var kind: Kind
        let peer: String
        var watch = GPSD.Watch()
        /// Bytes read and not yet a whole command or request head.
        var input: [UInt8] = []
        /// Bytes queued; the first `sent` of them are written.
        var output: [UInt8] = []
        var sent = 0
        /// Close once everything queued is written (an answered request, a refused command).
        var closeWhenSent = false
        /// A request is being answered: what else it sends is not read.
        var answering = false

        var pending: Int { output.count - sent }
        /// Whether the client takes `TPV` reports, NMEA sentences, page events.
        var wantsJSON: Bool { kind == .gpsd && watch.enable && watch.json }
        var wantsNMEA: Bool { kind == .nmea || (kind == .gpsd && watch.enable && watch.nmea) }
        var isWatching: Bool { kind == .nmea || kind == .events || (kind == .gpsd && watch.enable) }

        mutating func queue(_ text: String) {
            output.append(contentsOf: text.utf8)
        }
    }

    struct State: Sendable {
        var clients: [Int32: Client] = [:]
        var opened = 0
        /// Clients dropped by a publisher: the loop closes their sockets.
        var closing: [Int32] = []
        var running = true
        var loopEnded = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var lastLocation: Location?
        /// The page's latest message of each kind (location, region, state, one per ranking group): what a new page is sent first.
        var pageState: [String: String] = [:]
        var pageOrder: [String] = []
        var readyWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
        var dropped = 0
        var paused = false
        var speed: Double

        /// The waiters whose count of watching clients is reached, taken out.
        mutating func takeReadyWaiters() -> [CheckedContinuation<Void, Never>] {
            guard !readyWaiters.isEmpty else { return [] }
            let watching = clients.values.filter(\.isWatching).count
            var woken: [CheckedContinuation<Void, Never>] = []
            readyWaiters.removeAll { count, continuation in
                guard watching >= count else { return false }
                woken.append(continuation)
                return true
            }
            return woken
        }
    }

    public let configuration: Configuration
    /// Where each service listens (the port chosen when 0 was asked for).
    public let gpsdAddress: Endpoint?
    public let nmeaAddress: Endpoint?
    public let httpAddress: Endpoint?

    /// The lines `stroll serve` prints when it listens: each service and its address.
    public var banner: String {
        var text = ""
        for (service, address) in [("gpsd", gpsdAddress), ("nmea", nmeaAddress), ("http", httpAddress)] {
            guard let address else { continue }
            text += "serving \(service) on \(address)\(service == "http" ? " (http://\(address)/)" : "")\n"
        }
        return text
    }
    let control: ReplayControl
    let page: LivePage
    let activated: Double
    let log: @Sendable (String) -> Void
    let listeners: [(fd: Int32, kind: Kind)]
    /// The pipe that wakes the loop: publishers write a byte to its second end.
    let wake: (read: Int32, write: Int32)
    let state: Locked<State>

    private init(configuration: Configuration, addresses: [Endpoint?], listeners: [(fd: Int32, kind: Kind)], wake: (read: Int32, write: Int32),
                 control: ReplayControl, page: LivePage, speed: Double, log: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        (gpsdAddress, nmeaAddress, httpAddress) = (addresses[0], addresses[1], addresses[2])
        self.listeners = listeners
        self.wake = wake
        self.control = control
        self.page = page
        self.log = log
        state = Locked(State(speed: speed))
        activated = Date().timeIntervalSince1970
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Listens on every address the configuration names. `page` is the live
    /// view; `control` pauses, resumes and changes the speed of the replay
    /// that publishes here.
    public static func start(_ configuration: Configuration, page: LivePage, control: ReplayControl, speed: Double,
                             log: @escaping @Sendable (String) -> Void = { _ in }) async throws(ServeError) -> LiveServer {
        var listeners: [(fd: Int32, kind: Kind)] = []
        func fail(_ error: ServeError) -> ServeError {
            for listener in listeners { close(listener.fd) }
            return error
        }
        var addresses: [Endpoint?] = []
        for (service, endpoint, kind) in [("gpsd", configuration.gpsd, Kind.gpsd), ("nmea", configuration.nmea, .nmea), ("http", configuration.http, .http)] {
            guard var endpoint else {
                addresses.append(nil)
                continue
            }
            var bound: (fd: Int32, port: Int)?
            do {
                bound = try Socket.listener(endpoint)
            } catch where error.code == EADDRINUSE && error.call == "bind" {
                if kind == .gpsd && configuration.gpsdFallback {
                    log("gpsd: \(endpoint) is in use; listening on a free port instead")
                    endpoint.port = 0
                    bound = try? Socket.listener(endpoint)
                }
                if bound == nil { throw fail(.addressInUse(service: service, endpoint)) }
            } catch {
                throw fail(.cannotListen(service: service, endpoint, reason: error.description))
            }
            guard let bound else { throw fail(.cannotListen(service: service, endpoint, reason: "no socket")) }
            listeners.append((bound.fd, kind))
            endpoint.port = bound.port
            addresses.append(endpoint)
        }
        guard let wake = Socket.wakePipe() else { throw fail(.cannotListen(service: "serve", Endpoint(host: "", port: 0), reason: "no pipe")) }
        let server = LiveServer(configuration: configuration, addresses: addresses, listeners: listeners, wake: wake,
                                control: control, page: page, speed: speed, log: log)
        server.setPaused(false)
        let thread = Thread { server.runLoop() }
        thread.name = "stroll serve"
        thread.start()
        return server
    }

    /// Stops listening and closes every client; returns once the loop has ended.
    public func shutdown() async {
        let waiters = state.withLock { state in
            state.running = false
            let waiters = state.readyWaiters.map(\.1)
            state.readyWaiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume() }
        wakeLoop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state -> Bool in
                if state.loopEnded { return true }
                state.shutdownWaiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    func wakeLoop() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    // MARK: Clients

    /// Clients that receive something: gpsd watchers, NMEA and page listeners.
    public var watchingClients: Int { state.withLock { $0.clients.values.filter(\.isWatching).count } }

    /// How many clients were dropped for not reading.
    public var droppedClients: Int { state.withLock { $0.dropped } }

    /// Returns once `count` clients are watching (or the server shuts down).
    public func waitForClients(_ count: Int) async {
        guard count > 0 else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if !state.running || state.clients.values.filter(\.isWatching).count >= count { return true }
                state.readyWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    // MARK: Publishing

    /// Sends one replay event to the clients that want it: a delivered fix as a
    /// gpsd `TPV` and as NMEA sentences; fixes, rankings, the map region and the
    /// end of the run to the web page.
    public func publish(_ event: ReplayEvent) {
        switch event {
        case .location(let l, let t):
            state.withLock { $0.lastLocation = l }
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
        case .filtered, .region, .error, .pause, .resume, .visit:
            break
        }
    }

    /// The replay's speed and pause state as the page shows them.
    func setPaused(_ paused: Bool? = nil, speed: Double? = nil) {
        let message = state.withLock { state -> JSON in
            if let paused { state.paused = paused }
            if let speed { state.speed = speed }
            return .object([("type", .string("state")), ("paused", .bool(state.paused)), ("speed", .number(state.speed))])
        }
        pageEvent("state", message)
    }

    private func rounded(_ v: Double) -> Double { (v * 10).rounded() / 10 }

    private func pageEvent(_ key: String, _ message: JSON) {
        let text = "data: \(message.text)\n\n"
        state.withLock { state in
            if state.pageState.updateValue(text, forKey: key) == nil { state.pageOrder.append(key) }
        }
        send(text) { $0.kind == .events }
    }

    /// Queues `text` for every client `wants` selects, within each one's buffer limit.
    private func send(_ text: String, to wants: (Client) -> Bool) {
        let bytes = Array(text.utf8)
        let limit = configuration.clientBufferLimit
        let (slow, queued) = state.withLock { state -> ([String], Bool) in
            var slow: [String] = []
            var queued = false
            for fd in Array(state.clients.keys) {
                guard let client = state.clients[fd], wants(client) else { continue }
                if client.pending + bytes.count > limit {
                    state.clients[fd] = nil
                    state.closing.append(fd)
                    state.dropped += 1
                    slow.append(client.peer)
                } else {
                    state.clients[fd]?.output.append(contentsOf: bytes)
                }
                queued = true
            }
            return (slow, queued)
        }
        for peer in slow { log("dropped \(peer): it stopped reading (\(limit / 1024) KiB unsent)") }
        // The loop has something to write or close only if some client wanted this.
        if queued { wakeLoop() }
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
