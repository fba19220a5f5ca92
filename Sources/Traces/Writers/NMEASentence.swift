import Foundation

/// NMEA 0183 sentences for one fix, checksummed and ended with CR LF: what
/// `trace convert --to nmea` writes and what `stroll serve --nmea` streams.
/// Positions carry minutes to six decimals (under a millimetre).
public enum NMEASentence {
    /// `GGA`: time, position, fix quality 1, satellites, HDOP, altitude.
    public static func gga(_ fix: Fix, talker: String = "GP") -> String {
        let hdop = fix.hdop.map { String(format: "%.1f", $0) } ?? ""
        let altitude = fix.elevation.map { String(format: "%.3f", $0) } ?? ""
        let satellites = fix.satellites.map { String(format: "%02d", $0) } ?? ""
        return sentence("\(talker)GGA,\(time(fix)),\(position(fix)),1,\(satellites),\(hdop),\(altitude),M,,M,,")
    }

    /// `RMC`: time, status A, position, speed in knots, course, date, mode A.
    public static func rmc(_ fix: Fix, talker: String = "GP") -> String {
        let knots = fix.speed.map { String(format: "%.3f", $0 * 3600 / 1852) } ?? ""
        let course = fix.course.map { String(format: "%.2f", $0) } ?? ""
        return sentence("\(talker)RMC,\(time(fix)),A,\(position(fix)),\(knots),\(course),\(date(fix)),,,A")
    }

    /// `GSA`: automatic mode, a 3D fix when the altitude is known (else 2D), and the DOPs.
    public static func gsa(_ fix: Fix, talker: String = "GP") -> String {
        func dop(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "" }
        let mode = fix.elevation == nil ? 2 : 3
        return sentence("\(talker)GSA,A,\(mode),,,,,,,,,,,,,\(dop(fix.pdop)),\(dop(fix.hdop)),\(dop(fix.vdop))")
    }

    /// `GST`: the error's standard deviations in metres. The horizontal accuracy
    /// (a radius) is split evenly between latitude and longitude, so that
    /// √(σlat² + σlon²) gives it back, as Stroll's reader computes it.
    public static func gst(_ fix: Fix, talker: String = "GP") -> String {
        let axis = fix.horizontalAccuracy.map { String(format: "%.3f", $0 / 2.0.squareRoot()) } ?? ""
        let vertical = fix.verticalAccuracy.map { String(format: "%.3f", $0) } ?? ""
        let rms = fix.horizontalAccuracy.map { String(format: "%.3f", $0) } ?? ""
        return sentence("\(talker)GST,\(time(fix)),\(rms),,,,\(axis),\(axis),\(vertical)")
    }

    /// `hhmmss.sss` of the fix's time (empty without one).
    static func time(_ fix: Fix) -> String {
        guard let t = fix.time else { return "" }
        let seconds = t - (t / 86_400).rounded(.down) * 86_400
        return String(format: "%02d%02d%06.3f", Int(seconds / 3600), Int(seconds / 60) % 60, seconds.truncatingRemainder(dividingBy: 60))
    }

    /// `ddmmyy` of the fix's date (empty without a time).
    static func date(_ fix: Fix) -> String {
        guard let t = fix.time else { return "" }
        let day = (t / 86_400).rounded(.down) * 86_400
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC") ?? .current, from: Date(timeIntervalSince1970: day))
        return String(format: "%02d%02d%02d", components.day ?? 1, components.month ?? 1, (components.year ?? 2000) % 100)
    }

    /// `ddmm.mmmmmm,N,dddmm.mmmmmm,W`.
    static func position(_ fix: Fix) -> String {
        let lat = angle(abs(fix.coordinate.latitude), degreeDigits: 2) + (fix.coordinate.latitude < 0 ? ",S" : ",N")
        let lon = angle(abs(fix.coordinate.longitude), degreeDigits: 3) + (fix.coordinate.longitude < 0 ? ",W" : ",E")
        return lat + "," + lon
    }

    static func angle(_ degrees: Double, degreeDigits: Int) -> String {
        var whole = degrees.rounded(.down)
        var minutes = ((degrees - whole) * 60 * 1_000_000).rounded() / 1_000_000
        if minutes >= 60 {
            whole += 1
            minutes -= 60
        }
        return String(format: "%0\(degreeDigits)d%09.6f", Int(whole), minutes)
    }

    /// `$BODY*CS\r\n`, CS the XOR of the body's bytes.
    public static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$" + body + String(format: "*%02X\r\n", sum)
    }
}
