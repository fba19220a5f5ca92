import Foundation

/// The time zone of a country that has one: the IANA time zone database's
/// `zone.tab` (the tzdata that Foundation's `TimeZone` reads, in
/// /usr/share/zoneinfo), which lists each country's zones. A country with
/// one zone (Monaco: `Europe/Monaco`; the United Kingdom: `Europe/London`)
/// gives it; a country with several (the United States, Russia) gives none,
/// since which one an address is in depends on boundaries the database does
/// not hold.
public enum CountryTimeZones {
    /// Where the table is read from.
    public static let path = "/usr/share/zoneinfo/zone.tab"

    /// The zone identifier of the country with ISO 3166-1 code `code`
    /// (upper case), when the table lists exactly one; nil otherwise, and
    /// without the table.
    public static func identifier(country code: String) -> String? {
        table[code.uppercased()]
    }

    /// Each country with one zone, and its zone.
    private static let table: [String: String] = {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        return zones(inZoneTab: text)
    }()

    /// `zone.tab`'s countries with one zone: lines of a code, coordinates and
    /// a zone, tab-separated; `#` starts a comment.
    public static func zones(inZoneTab text: String) -> [String: String] {
        var zones: [String: [String]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 3, fields[0].count == 2 else { continue }
            zones[String(fields[0]), default: []].append(String(fields[2]))
        }
        return zones.compactMapValues { $0.count == 1 ? $0[0] : nil }
    }
}
