/// The one quoting rule of every CSV file Stroll writes (traces, places,
/// shards): a field holding a comma, a quote, a semicolon, a tab or a line
/// break is put in quotes with its quotes doubled (RFC 4180); any other field
/// is written as it is. Stroll's CSV reader, spreadsheets and GDAL read both.
public enum CSVField {
    public static func quoted(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == ";" || $0 == "\t" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
