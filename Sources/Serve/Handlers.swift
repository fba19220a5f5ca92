// Built with the Serve trait (the default); without it this module is empty.
#if Serve
import Foundation
import NIOCore
import NIOHTTP1

/// One gpsd client: the `VERSION` banner on connect, then commands ended by
/// `;` or a newline, each answered on the spot; `?WATCH` decides which reports
/// the server sends it. A command line longer than the limit gets an `ERROR`
/// and the connection is closed; anything else malformed gets an `ERROR` and
/// the client carries on.
final class GPSDHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let server: LiveServer
    private var pending: [UInt8] = []

    init(server: LiveServer) {
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        server.register(context.channel, kind: .gpsd)
        reply(GPSD.version(), context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.unregister(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        while let end = pending.firstIndex(where: { $0 == UInt8(ascii: ";") || $0 == 0x0A || $0 == 0x0D }) {
            let command = String(decoding: pending[..<end], as: UTF8.self)
            pending.removeSubrange(...end)
            if !command.trimmingCharacters(in: .whitespaces).isEmpty { handle(command, context: context) }
        }
        if pending.count > server.configuration.maximumCommandBytes {
            pending.removeAll()
            reply(GPSD.error("Request too long: more than \(server.configuration.maximumCommandBytes) bytes without ';' or a newline"), context: context)
            context.close(promise: nil)
        }
    }

    private func handle(_ text: String, context: ChannelHandlerContext) {
        let device = server.configuration.device
        switch GPSD.parse(text) {
        case .version:
            reply(GPSD.version(), context: context)
        case .devices:
            reply(GPSD.devices(device, activated: server.activated), context: context)
        case .device:
            reply(GPSD.device(device, activated: server.activated), context: context)
        case .poll:
            reply(GPSD.poll(last: server.lastLocation, device: device, now: Date().timeIntervalSince1970), context: context)
        case .watch(let flags):
            let watch = flags.isEmpty ? server.watch(of: context.channel) : server.updateWatch(context.channel, flags)
            if !flags.isEmpty && watch.enable { reply(GPSD.devices(device, activated: server.activated), context: context) }
            reply(GPSD.watch(watch), context: context)
        case .error(let message):
            reply(GPSD.error(message), context: context)
        }
    }

    private func reply(_ text: String, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// One NMEA listener: it is sent sentences and nothing it sends is read.
final class NMEAHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    let server: LiveServer

    init(server: LiveServer) {
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        server.register(context.channel, kind: .nmea)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.unregister(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// The web view: `GET /` the page, `GET /events` its Server-Sent Events,
/// `POST /control?action=pause|resume|speed&value=X` the replay's controls.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let server: LiveServer
    private var head: HTTPRequestHead?
    private var streaming = false

    init(server: LiveServer) {
        self.server = server
    }

    func channelInactive(context: ChannelHandlerContext) {
        if streaming { server.unregister(context.channel) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
        case .body:
            break
        case .end:
            guard let head, !streaming else { return }
            self.head = nil
            route(head, context: context)
        }
    }

    private func route(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let parts = head.uri.split(separator: "?", maxSplits: 1)
        let path = parts.first.map(String.init) ?? "/"
        var query: [String: String] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            query[String(kv[0])] = kv.count > 1 ? String(kv[1]).removingPercentEncoding : ""
        }
        switch (head.method, path) {
        case (.GET, "/"), (.GET, "/index.html"):
            respond(.ok, type: "text/html; charset=utf-8", body: server.page.html, context: context)
        case (.GET, "/events"):
            streaming = true
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/event-stream")
            headers.add(name: "Cache-Control", value: "no-cache")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
            // The current state first, so a page opened mid-walk shows where the walker is.
            for message in server.pageSnapshot {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: message)))), promise: nil)
            }
            context.flush()
            server.register(context.channel, kind: .events)
        case (.POST, "/control"):
            let action = query["action"] ?? ""
            let value = query["value"].flatMap(Double.init)
            let server = server
            let promise = context.eventLoop.makePromise(of: Bool.self)
            promise.completeWithTask { await server.control(action, value: value) }
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            promise.futureResult.whenSuccess { ok in
                let (handler, context) = loopBound.value
                handler.respond(ok ? .noContent : .badRequest, type: "text/plain", body: ok ? "" : "action must be pause, resume or speed (with value > 0)\n", context: context)
            }
        default:
            respond(.notFound, type: "text/plain", body: "not found: \(path)\n", context: context)
        }
    }

    private func respond(_ status: HTTPResponseStatus, type: String, body: String, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
#endif
