import Foundation

/// A CSV file as rows of strings, for tables other than traces (lists of
/// places, for example): RFC 4180 quoting, delimiter sniffed from the header,
/// CRLF and a byte-order mark, each row with its line number.
public struct CSVTable: Sendable {
    public var header: [String]
    public var rows: [(line: Int, fields: [String])]

    public static func read(_ path: String) throws(TraceError) -> CSVTable {
        try read(source: try ByteSource(path: path), path: path)
    }

    /// Reads CSV from bytes; `name` stands for the file in errors.
    public static func read(data: Data, name: String) throws(TraceError) -> CSVTable {
        try read(source: ByteSource(bytes: data, name: name), path: name)
    }

    private static func read(source: ByteSource, path: String) throws(TraceError) -> CSVTable {
        var reader = CSVRecordReader(source: source)
        var record = CSVRecord()
        guard try reader.next(into: &record) else {
            throw TraceError(.malformed, file: path, line: 1, column: 1, reason: "empty file: no CSV header")
        }
        let header = (0..<record.count).map { record.string($0) ?? "" }
        var rows: [(Int, [String])] = []
        while try reader.next(into: &record) {
            if record.isBlank { continue }
            rows.append((record.line, (0..<record.count).map { record.string($0) ?? "" }))
        }
        return CSVTable(header: header, rows: rows)
    }
}
