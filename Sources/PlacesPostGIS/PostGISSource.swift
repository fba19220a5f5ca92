import Foundation
import Places

/// A PostGIS source that cannot be read: the source with its password
/// hidden, and why. `unreadable` (exit 66) when the server, the database or
/// the table cannot be reached; `badData` (exit 65) for a column or SRID
/// that is wrong; `usage` (exit 64) for a URL that is not one.
public struct PostGISError: Error, Equatable, Sendable, CustomStringConvertible {
    /// How the source failed as a whole (``Places/PlaceSourceFailure``), which chooses the exit status.
    public typealias Kind = PlaceSourceFailure
    public var source: String
    public var reason: String
    public var kind: Kind

    public init(source: String, reason: String, kind: Kind) {
        self.source = source
        self.reason = reason
        self.kind = kind
    }

    public var description: String { "\(source): \(reason)" }
}

/// `postgresql://user@host:port/db?table=cafes&geometry=geom&name=name&group=kind`
/// read as libpq reads a connection URI: what the URI leaves out comes from
/// libpq's environment variables (`PGHOST`, `PGPORT`, `PGUSER`,
/// `PGDATABASE`, `PGPASSWORD`, `PGPASSFILE`, `PGSSLMODE`,
/// `PGCONNECT_TIMEOUT`), then from libpq's defaults (the Unix socket in
/// /var/run/postgresql, port 5432, the login name); a password not given
/// comes from `~/.pgpass` (ignored, as libpq does, when others can read it).
/// The password is never part of any description.
public struct PostGISSource: Sendable, Equatable {
    public var host: String
    /// A directory holding the server's Unix socket (a host starting with "/").
    public var socketDirectory: String?
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: String
    public var connectTimeout: Double
    /// The table (`schema.table` or `table`) and the columns chosen in the URI.
    public var table: String?
    public var geometry: String?
    public var name: String?
    public var group: String?
    public var id: String?
    public var subtitle: String?
    /// The URI with its password replaced by `***`: what messages show.
    public var redacted: String

    public static func isPostGIS(_ source: String) -> Bool { PlaceSourceURI.isPostgreSQL(source) }

    static let sslModes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    public init(_ uri: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                loginName: String = PostGISSource.loginName(), home: String = NSHomeDirectory()) throws(PostGISError) {
        let redacted = Self.redact(uri)
        func usage(_ reason: String) -> PostGISError { PostGISError(source: redacted, reason: reason, kind: .usage) }
        guard Self.isPostGIS(uri), let components = URLComponents(string: uri) else {
            throw usage("not a postgresql:// URI (postgresql://USER@HOST:PORT/DATABASE?table=TABLE)")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard let value = item.value else { throw usage("the parameter \(item.name) has no value") }
            query[item.name] = value
        }
        let known: Set = ["table", "geometry", "name", "group", "id", "subtitle", "host", "port", "user", "password", "dbname",
                          "sslmode", "connect_timeout"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw usage("unknown parameter \(unknown) (known: \(known.sorted().joined(separator: ", ")))")
        }
        func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }

        let hostValue = nonEmpty(query["host"]) ?? nonEmpty(components.host.map { $0.removingPercentEncoding ?? $0 }) ?? nonEmpty(environment["PGHOST"])
        if let hostValue, hostValue.hasPrefix("/") {
            socketDirectory = hostValue
            host = "localhost"
        } else if let hostValue {
            host = hostValue
            socketDirectory = nil
        } else {
            // libpq's default: the Unix socket, where Debian's server puts it; else TCP on localhost.
            let dir = "/var/run/postgresql"
            socketDirectory = FileManager.default.fileExists(atPath: dir) ? dir : nil
            host = "localhost"
        }
        let portText = nonEmpty(query["port"]) ?? components.port.map(String.init) ?? nonEmpty(environment["PGPORT"]) ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else { throw usage("port \(portText) is not a port number") }
        self.port = port
        user = nonEmpty(query["user"]) ?? nonEmpty(components.percentEncodedUser?.removingPercentEncoding) ?? nonEmpty(environment["PGUSER"]) ?? loginName
        let path = components.percentEncodedPath.removingPercentEncoding ?? components.path
        database = nonEmpty(query["dbname"]) ?? nonEmpty(String(path.drop { $0 == "/" })) ?? nonEmpty(environment["PGDATABASE"]) ?? user
        sslMode = nonEmpty(query["sslmode"]) ?? nonEmpty(environment["PGSSLMODE"]) ?? "prefer"
        guard Self.sslModes.contains(sslMode) else { throw usage("sslmode \(sslMode) is not one of \(Self.sslModes.joined(separator: ", "))") }
        let timeoutText = nonEmpty(query["connect_timeout"]) ?? nonEmpty(environment["PGCONNECT_TIMEOUT"]) ?? "10"
        guard let timeout = Double(timeoutText), timeout.isFinite, timeout > 0 else {
            throw usage("connect_timeout \(timeoutText) is not a number of seconds above 0")
        }
        connectTimeout = max(timeout, 2)  // libpq, too, never waits less than 2 seconds
        table = nonEmpty(query["table"])
        geometry = nonEmpty(query["geometry"])
        name = nonEmpty(query["name"])
        group = nonEmpty(query["group"])
        id = nonEmpty(query["id"])
        subtitle = nonEmpty(query["subtitle"])
        self.redacted = redacted
        let given = nonEmpty(query["password"]) ?? nonEmpty(components.percentEncodedPassword?.removingPercentEncoding)
        password = given ?? nonEmpty(environment["PGPASSWORD"])
            ?? Self.passwordFile(environment["PGPASSFILE"] ?? home + "/.pgpass", host: socketDirectory == nil ? host : "localhost",
                                 port: port, database: database, user: user)
    }

    /// The URI without its password (in the user part or a password parameter).
    public static func redact(_ uri: String) -> String {
        guard var components = URLComponents(string: uri) else {
            // Not parseable: hide everything between :// and @.
            guard let scheme = uri.range(of: "://"), let at = uri.range(of: "@", range: scheme.upperBound..<uri.endIndex) else { return uri }
            return String(uri[..<scheme.upperBound]) + "***" + String(uri[at.lowerBound...])
        }
        if components.percentEncodedPassword != nil { components.percentEncodedPassword = "***" }
        if let items = components.queryItems, items.contains(where: { $0.name == "password" }) {
            components.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
        }
        return components.string ?? uri
    }

    public static func loginName() -> String {
        if let pw = getpwuid(getuid()), let name = pw.pointee.pw_name { return String(cString: name) }
        return ProcessInfo.processInfo.environment["USER"] ?? "postgres"
    }

    /// The first `hostname:port:database:username:password` line of a
    /// password file that matches (`*` matches anything, `\:` and `\\` are
    /// escapes), as libpq reads `~/.pgpass`; nil when there is none, or when
    /// the file can be read by group or others.
    static func passwordFile(_ path: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 == 0,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            var fields: [String] = [""]
            var escaped = false
            for ch in line {
                if escaped {
                    fields[fields.count - 1].append(ch)
                    escaped = false
                } else if ch == "\\" {
                    escaped = true
                } else if ch == ":", fields.count < 5 {
                    fields.append("")
                } else {
                    fields[fields.count - 1].append(ch)
                }
            }
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }
}
