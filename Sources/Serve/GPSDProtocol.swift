import Foundation
import LocationSimulation
import Replay
import Traces

/// gpsd's JSON protocol (version 3, as gpsd 3.22 speaks it): the reports Stroll
/// sends and the commands it answers. Every report is one JSON object on one
/// line, ended with CR LF.
public enum GPSD {
    public static let protocolMajor = 3
    public static let protocolMinor = 14
    public static let release = "3.22"

    /// What a client asked for with `?WATCH`.
    public struct Watch: Equatable, Sendable {
        public var enable = false
        public var json = false
        public var nmea = false

        public init(enable: Bool = false, json: Bool = false, nmea: Bool = false) {
            self.enable = enable
            self.json = json
            self.nmea = nmea
        }
    }

    /// A client's command, `?NAME;` or `?NAME={json};`.
    public enum Command: Equatable, Sendable {
        case version
        case devices
        case device
        case poll
        /// `?WATCH;` asks for the current state; `?WATCH={...};` changes it (only the keys given).
        case watch([String: Bool])
        case error(String)
    }

    /// Parses one command (the text between terminators, without the `;`).
    public static func parse(_ raw: String) -> Command {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("?") else { return .error("Unrecognized request '\(printable(text))'") }
        let body = text.dropFirst()
        let name = String(body.prefix { $0.isLetter }).uppercased()
        let rest = body.dropFirst(name.count)
        var argument: [String: Any]?
        if rest.hasPrefix("=") {
            let json = Data(rest.dropFirst().utf8)
            guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
                return .error("Invalid \(name): the argument is not a JSON object")
            }
            argument = object
        } else if !rest.isEmpty {
            return .error("Unrecognized request '\(printable(text))'")
        }
        switch name {
        case "VERSION": return .version
        case "DEVICES": return .devices
        case "DEVICE": return .device
        case "POLL": return .poll
        case "WATCH":
            var flags: [String: Bool] = [:]
            for (key, value) in argument ?? [:] {
                // JSON booleans arrive as NSNumber on Linux and as Bool on macOS.
                if let number = value as? NSNumber, ["enable", "json", "nmea", "raw", "scaled", "timing", "split24", "pps"].contains(key) {
                    flags[key] = number.boolValue
                }
            }
            return .watch(flags)
        default:
            return .error("Unrecognized request '\(printable(text))'")
        }
    }

    /// Up to 40 characters, control characters and quotes replaced, for an error message.
    static func printable(_ text: String) -> String {
        String(text.prefix(40).unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" || $0 == "\\" ? "?" : Character($0) })
    }

    // MARK: Reports

    public static func version() -> String {
        line([("class", .string("VERSION")), ("release", .string(release)), ("rev", .string("stroll")),
              ("proto_major", .int(protocolMajor)), ("proto_minor", .int(protocolMinor))])
    }

    static func deviceObject(_ device: String, activated: Double) -> JSON {
        .object([("class", .string("DEVICE")), ("path", .string(device)), ("driver", .string("NMEA0183")),
                 ("activated", .string(ISO8601Time.format(activated))), ("flags", .int(1)), ("native", .int(0)),
                 ("bps", .int(4800)), ("parity", .string("N")), ("stopbits", .int(1)), ("cycle", .number(1.0))])
    }

    public static func devices(_ device: String, activated: Double) -> String {
        line([("class", .string("DEVICES")), ("devices", .array([deviceObject(device, activated: activated)]))])
    }

    public static func device(_ device: String, activated: Double) -> String {
        deviceObject(device, activated: activated).text + "\r\n"
    }

    public static func watch(_ watch: Watch) -> String {
        line([("class", .string("WATCH")), ("enable", .bool(watch.enable)), ("json", .bool(watch.json)), ("nmea", .bool(watch.nmea)),
              ("raw", .int(0)), ("scaled", .bool(false)), ("timing", .bool(false)), ("split24", .bool(false)), ("pps", .bool(false))])
    }

    public static func error(_ message: String) -> String {
        line([("class", .string("ERROR")), ("message", .string(message))])
    }

    /// The horizontal accuracy is CoreLocation's: the radius of the 68 % circle.
    /// gpsd's `eph`, `epx` and `epy` are 95 % figures: for a circular normal error,
    /// σ per axis = r68 / 1.515, the 95 % circle is 2.448 σ and the 95 % interval per axis 1.960 σ.
    public static func errors(horizontalAccuracy: Double) -> (eph: Double, epx: Double, epy: Double) {
        let sigma = horizontalAccuracy / 1.5152
        return (2.4477 * sigma, 1.96 * sigma, 1.96 * sigma)
    }

    /// A `TPV` object for a delivered location: mode 3 with an altitude (valid
    /// vertical accuracy), else 2; `eph`/`epx`/`epy` from the horizontal accuracy,
    /// `epv` from the vertical, `track` and `speed` when valid.
    public static func tpvObject(_ l: Location, device: String) -> JSON {
        var fields: [(String, JSON)] = [("class", .string("TPV")), ("device", .string(device))]
        let threeD = l.verticalAccuracy > 0
        fields.append(("mode", .int(threeD ? 3 : 2)))
        fields.append(("time", .string(ISO8601Time.format(l.timestamp))))
        fields.append(("ept", .number(0.005)))
        fields.append(("lat", .number(l.coordinate.latitude)))
        fields.append(("lon", .number(l.coordinate.longitude)))
        if threeD {
            fields.append(("altHAE", .number(l.altitude)))
            fields.append(("altMSL", .number(l.altitude)))
            fields.append(("alt", .number(l.altitude)))
            fields.append(("epv", .number(1.96 * l.verticalAccuracy)))
        }
        if l.horizontalAccuracy > 0 {
            let e = errors(horizontalAccuracy: l.horizontalAccuracy)
            fields.append(("epx", .number(e.epx)))
            fields.append(("epy", .number(e.epy)))
            fields.append(("eph", .number(e.eph)))
        }
        if l.course >= 0 { fields.append(("track", .number(l.course))) }
        if l.speed >= 0 { fields.append(("speed", .number(l.speed))) }
        return .object(fields)
    }

    public static func tpv(_ l: Location, device: String) -> String {
        tpvObject(l, device: device).text + "\r\n"
    }

    /// `POLL`: the last fix (none before the first), `active` 1.
    public static func poll(last: Location?, device: String, now: Double) -> String {
        line([("class", .string("POLL")), ("time", .string(ISO8601Time.format(now))), ("active", .int(1)),
              ("tpv", .array(last.map { [tpvObject($0, device: device)] } ?? [])), ("sky", .array([]))])
    }

    /// The fix as NMEA: `GGA`, `RMC`, `GSA` and `GST`.
    public static func nmea(_ l: Location) -> String {
        let fix = fixOf(l)
        return NMEASentence.gga(fix) + NMEASentence.rmc(fix) + NMEASentence.gsa(fix) + NMEASentence.gst(fix)
    }

    /// A location as a recorded fix (what the NMEA sentences carry); HDOP is the
    /// horizontal accuracy over the 5 m per HDOP unit Stroll's NMEA reader assumes.
    static func fixOf(_ l: Location) -> Fix {
        var fix = Fix(coordinate: l.coordinate, time: l.timestamp)
        if l.verticalAccuracy > 0 {
            fix.elevation = l.altitude
            fix.verticalAccuracy = l.verticalAccuracy
        }
        if l.horizontalAccuracy > 0 {
            fix.horizontalAccuracy = l.horizontalAccuracy
            fix.hdop = l.horizontalAccuracy / NMEAStream.hdopMetres
        }
        fix.speed = l.speed >= 0 ? l.speed : nil
        fix.course = l.course >= 0 ? l.course : nil
        return fix
    }

    private static func line(_ fields: [(String, JSON)]) -> String {
        JSON.object(fields).text + "\r\n"
    }
}
