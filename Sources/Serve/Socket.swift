import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a socket call failed: the call and the system's reason.
struct SocketError: Error, CustomStringConvertible {
    var call: String
    var code: Int32
    var reason: String

    init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
        reason = String(cString: strerror(code))
    }

    init(_ call: String, code: Int32, reason: String) {
        self.call = call
        self.code = code
        self.reason = reason
    }

    var description: String { "\(call): \(reason)" }
}

/// The few POSIX socket calls the live server makes: non-blocking TCP
/// listeners and clients, polled by one thread (``LiveServer``'s loop).
enum Socket {
    #if os(Linux)
    static let stream = Int32(SOCK_STREAM.rawValue)
    /// No SIGPIPE when a client has gone: the write fails with EPIPE instead.
    static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    static let stream = SOCK_STREAM
    static let sendFlags: Int32 = 0
    #endif

    /// A non-blocking socket listening on `endpoint` (its first address;
    /// port 0: any free port) with a backlog of 256, and the port it got.
    static func listener(_ endpoint: Endpoint) throws(SocketError) -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = stream
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &found)
        guard status == 0, let first = found else {
            throw SocketError("getaddrinfo", code: status, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(found) }
        let info = first.pointee
        let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard fd >= 0 else { throw SocketError("socket") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
            let error = SocketError("bind")
            close(fd)
            throw error
        }
        guard listen(fd, 256) == 0 else {
            let error = SocketError("listen")
            close(fd)
            throw error
        }
        setNonBlocking(fd)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, port(of: storage) ?? endpoint.port)
    }

    /// The next waiting connection, non-blocking, with Nagle's delay off, and
    /// its peer as `host:port`; nil when none waits (or it went before accept).
    static func acceptClient(_ listener: Int32) -> (fd: Int32, peer: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
        }
        guard fd >= 0 else { return nil }
        setNonBlocking(fd)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return (fd, describe(storage, length: length))
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// A pipe whose write end wakes the loop's `poll`: both ends non-blocking.
    static func wakePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        setNonBlocking(ends[0])
        setNonBlocking(ends[1])
        return (ends[0], ends[1])
    }

    static func port(of storage: sockaddr_storage) -> Int? {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        default:
            return nil
        }
    }

    /// `host:port` (`[host]:port` for IPv6), numerically.
    static func describe(_ storage: sockaddr_storage, length: socklen_t) -> String {
        var storage = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard status == 0 else { return "a client" }
        let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = port(of: storage).map(String.init) ?? "?"
        return name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)"
    }
}
