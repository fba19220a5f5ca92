import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The live server's one I/O thread: `poll` over the listeners, the wake pipe
/// and every client; accept, read and answer, write what is queued. Only this
/// thread opens and closes client sockets, so a socket number is never reused
/// while anything still refers to it.
extension LiveServer {
    func runLoop() {
        var polled: [pollfd] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let readable = Int16(POLLIN), writable = Int16(POLLOUT), broken = Int16(POLLHUP) | Int16(POLLERR)
        while true {
            let (running, clients, closing) = state.withLock { state in
                let closing = state.closing
                state.closing.removeAll()
                return (state.running, state.clients.values.map { ($0.fd, $0.pending > 0) }, closing)
            }
            for fd in closing { close(fd) }
            guard running else { break }
            polled.removeAll(keepingCapacity: true)
            polled.append(pollfd(fd: wake.read, events: readable, revents: 0))
            for listener in listeners { polled.append(pollfd(fd: listener.fd, events: readable, revents: 0)) }
            for (fd, hasOutput) in clients { polled.append(pollfd(fd: fd, events: readable | (hasOutput ? writable : 0), revents: 0)) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 else {
                if errno == EINTR { continue }
                log("serve: poll failed: \(String(cString: strerror(errno)))")
                break
            }
            if polled[0].revents != 0 {
                while read(wake.read, &buffer, buffer.count) > 0 {}
            }
            for (index, listener) in listeners.enumerated() where polled[1 + index].revents & readable != 0 {
                while let accepted = Socket.acceptClient(listener.fd) { opened(accepted.fd, peer: accepted.peer, kind: listener.kind) }
            }
            for entry in polled.dropFirst(1 + listeners.count) where entry.revents != 0 {
                if entry.revents & (readable | broken) != 0 { received(entry.fd, buffer: &buffer) }
                if entry.revents & writable != 0 { flush(entry.fd) }
            }
        }
        // Shut down: every socket closed, then whoever waits for it told.
        let (open, waiters) = state.withLock { state in
            let open = Array(state.clients.keys) + state.closing
            state.clients.removeAll()
            state.closing.removeAll()
            state.loopEnded = true
            let waiters = state.shutdownWaiters
            state.shutdownWaiters.removeAll()
            return (open, waiters)
        }
        for fd in open { close(fd) }
        for listener in listeners { close(listener.fd) }
        for waiter in waiters { waiter.resume() }
    }

    /// A new client: gpsd clients get the `VERSION` banner at once.
    private func opened(_ fd: Int32, peer: String, kind: Kind) {
        let woken = state.withLock { state in
            state.opened += 1
            var client = Client(fd: fd, id: state.opened, kind: kind, peer: peer)
            if kind == .gpsd { client.queue(GPSD.version()) }
            state.clients[fd] = client
            return state.takeReadyWaiters()
        }
        for waiter in woken { waiter.resume() }
        flush(fd)
    }

    /// What a client sent: gpsd commands, an HTTP request; NMEA and event
    /// listeners are read only to see them go.
    private func received(_ fd: Int32, buffer: inout [UInt8]) {
        let count = read(fd, &buffer, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        guard count > 0 else { return closeClient(fd) }
        let bytes = buffer[..<count]
        let (woken, request) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Request?) in
            guard var client = state.clients.removeValue(forKey: fd) else { return ([], nil) }
            var request: Request?
            if !client.closeWhenSent && !client.answering {
                switch client.kind {
                case .gpsd: commands(bytes, client: &client, state: &state)
                case .http: request = head(bytes, client: &client)
                case .nmea, .events: break
                }
            }
            state.clients[fd] = client
            return (state.takeReadyWaiters(), request)
        }
        for waiter in woken { waiter.resume() }
        if let request { answer(request, fd: fd) }
        flush(fd)
    }

    /// Writes what is queued for `fd` until the socket would block; closes it
    /// when it fails, or when everything is written and it was to close.
    func flush(_ fd: Int32) {
        let done = state.withLock { state -> Bool in
            guard var client = state.clients.removeValue(forKey: fd) else { return false }
            var failed = false
            while client.sent < client.output.count {
                let written = client.output.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return 0 }
                    return send(fd, base + client.sent, bytes.count - client.sent, Socket.sendFlags)
                }
                if written > 0 {
                    client.sent += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    failed = written == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
                    break
                }
            }
            if client.sent == client.output.count {
                client.output.removeAll(keepingCapacity: client.output.count <= 64 * 1024)
                client.sent = 0
            } else if client.sent >= 64 * 1024 {
                client.output.removeFirst(client.sent)
                client.sent = 0
            }
            if failed || (client.closeWhenSent && client.output.isEmpty) { return true }
            state.clients[fd] = client
            return false
        }
        if done { close(fd) }
    }

    private func closeClient(_ fd: Int32) {
        let known = state.withLock { $0.clients.removeValue(forKey: fd) != nil }
        if known { close(fd) }
    }

    // MARK: gpsd

    /// Commands ended by `;` or a newline, each answered on the spot; `?WATCH`
    /// decides which reports the client is sent. A command line longer than
    /// the limit gets an `ERROR` and the connection is closed; anything else
    /// malformed gets an `ERROR` and the client carries on.
    private func commands(_ bytes: ArraySlice<UInt8>, client: inout Client, state: inout State) {
        client.input.append(contentsOf: bytes)
        var start = 0
        for (index, byte) in client.input.enumerated() where byte == UInt8(ascii: ";") || byte == 0x0A || byte == 0x0D {
            let command = String(decoding: client.input[start..<index], as: UTF8.self)
            start = index + 1
            if !command.trimmingCharacters(in: .whitespaces).isEmpty { answer(command, client: &client, state: &state) }
        }
        client.input.removeFirst(start)
        let limit = configuration.maximumCommandBytes
        if client.input.count > limit {
            client.input.removeAll()
            client.queue(GPSD.error("Request too long: more than \(limit) bytes without ';' or a newline"))
            client.closeWhenSent = true
        }
    }

    private func answer(_ text: String, client: inout Client, state: inout State) {
        let device = configuration.device
        switch GPSD.parse(text) {
        case .version:
            client.queue(GPSD.version())
        case .devices:
            client.queue(GPSD.devices(device, activated: activated))
        case .device:
            client.queue(GPSD.device(device, activated: activated))
        case .poll:
            client.queue(GPSD.poll(last: state.lastLocation, device: device, now: Date().timeIntervalSince1970))
        case .watch(let flags):
            if let v = flags["enable"] { client.watch.enable = v }
            if let v = flags["json"] { client.watch.json = v }
            if let v = flags["nmea"] { client.watch.nmea = v }
            // Enabling with neither format named means JSON, as gpsd does.
            if flags["enable"] == true && flags["json"] == nil && flags["nmea"] == nil && !client.watch.nmea { client.watch.json = true }
            if !flags.isEmpty && client.watch.enable { client.queue(GPSD.devices(device, activated: activated)) }
            client.queue(GPSD.watch(client.watch))
        case .error(let message):
            client.queue(GPSD.error(message))
        }
    }

    // MARK: The web view

    /// An HTTP request's method, path and query.
    struct Request: Sendable {
        var method: String
        var path: String
        var query: [String: String]
    }

    /// The request once its head is whole (its body, if any, is not read:
    /// every answer closes the connection); a head too long or not HTTP is
    /// answered at once with 431 or 400.
    private func head(_ bytes: ArraySlice<UInt8>, client: inout Client) -> Request? {
        client.input.append(contentsOf: bytes)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        guard let found = client.input.indices.dropLast(3).first(where: { client.input[$0..<$0 + 4].elementsEqual(end) }) else {
            if client.input.count > configuration.maximumRequestBytes {
                client.input.removeAll()
                client.queue(Self.response(431, type: "text/plain", body: "request head over \(configuration.maximumRequestBytes) bytes\n"))
                client.closeWhenSent = true
            }
            return nil
        }
        let line = String(decoding: client.input[..<found], as: UTF8.self).split(separator: "\r\n", maxSplits: 1).first ?? ""
        client.input.removeAll()
        let words = line.split(separator: " ")
        guard words.count == 3, words[2].hasPrefix("HTTP/1.") else {
            client.queue(Self.response(400, type: "text/plain", body: "not an HTTP/1 request line\n"))
            client.closeWhenSent = true
            return nil
        }
        let parts = words[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard let key = kv.first else { continue }
            query[String(key)] = kv.count > 1 ? String(kv[1]).removingPercentEncoding : ""
        }
        return Request(method: String(words[0]), path: parts.first.map(String.init) ?? "/", query: query)
    }

    /// `GET /` the page, `GET /events` its Server-Sent Events (the page's
    /// current state first), `POST /control?action=pause|resume|speed&value=X`
    /// the replay's controls.
    private func answer(_ request: Request, fd: Int32) {
        switch (request.method, request.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            reply(fd, Self.response(200, type: "text/html; charset=utf-8", body: page.html))
        case ("GET", "/events"):
            let woken = state.withLock { state in
                guard var client = state.clients.removeValue(forKey: fd) else { return [CheckedContinuation<Void, Never>]() }
                client.kind = .events
                client.queue("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")
                // The current state first, so a page opened mid-walk shows where the walker is.
                for key in state.pageOrder { if let message = state.pageState[key] { client.queue(message) } }
                state.clients[fd] = client
                return state.takeReadyWaiters()
            }
            for waiter in woken { waiter.resume() }
        case ("POST", "/control"):
            let action = request.query["action"] ?? ""
            let value = request.query["value"].flatMap(Double.init)
            // Answered when the replay has taken the change; the loop goes on meanwhile.
            guard let id = state.withLock({ state -> Int? in
                state.clients[fd]?.answering = true
                return state.clients[fd]?.id
            }) else { return }
            Task { [self] in
                let ok = await control(action, value: value)
                reply(fd, ok ? Self.response(204, type: "text/plain", body: "")
                          : Self.response(400, type: "text/plain", body: "action must be pause, resume or speed (with value > 0)\n"), id: id)
                wakeLoop()
            }
        default:
            reply(fd, Self.response(404, type: "text/plain", body: "not found: \(request.path)\n"))
        }
    }

    /// Queues a whole response; the connection closes once it is written.
    /// With `id`, only if `fd` is still that client (it may have gone).
    private func reply(_ fd: Int32, _ response: String, id: Int? = nil) {
        state.withLock { state in
            guard id == nil || state.clients[fd]?.id == id else { return }
            state.clients[fd]?.queue(response)
            state.clients[fd]?.closeWhenSent = true
        }
    }

    static func response(_ status: Int, type: String, body: String) -> String {
        let reasons = [200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found", 431: "Request Header Fields Too Large"]
        return "HTTP/1.1 \(status) \(reasons[status] ?? "Status")\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body
    }
}
