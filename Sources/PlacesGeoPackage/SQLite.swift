import CSQLite
import Foundation

/// What went wrong with a database: the file, and SQLite's message or ours.
struct SQLiteError: Error {
    var message: String
}

/// The few SQLite calls a GeoPackage needs: a connection owned by one reader
/// or writer on one thread, statements with bound values (identifiers quoted
/// with ``SQLite/quote(_:)``, values never pasted into SQL).
final class SQLite {
    private let db: OpaquePointer

    enum Mode { case readOnly, create }

    init(path: String, mode: Mode) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = mode == .readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let rc = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            throw SQLiteError(message: message)
        }
        db = handle
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        sqlite3_close_v2(db)
    }

    /// An identifier in double quotes, inner quotes doubled: safe for any table or column name.
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    var lastError: String { String(cString: sqlite3_errmsg(db)) }

    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw SQLiteError(message: text)
        }
    }

    func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteError(message: lastError)
        }
        return Statement(connection: self, statement: statement)
    }

    /// Rows of a query with its parameters, each as a row reader.
    func rows(_ sql: String, _ values: [Value] = [], _ body: (Statement) throws(SQLiteError) -> Void) throws(SQLiteError) {
        let statement = try prepare(sql)
        try statement.bind(values)
        while try statement.step() { try body(statement) }
    }

    enum Value {
        case null, int(Int64), double(Double), text(String), blob([UInt8])
    }

    final class Statement {
        let connection: SQLite
        let statement: OpaquePointer

        init(connection: SQLite, statement: OpaquePointer) {
            self.connection = connection
            self.statement = statement
        }

        deinit {
            sqlite3_finalize(statement)
        }

        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        func bind(_ values: [Value]) throws(SQLiteError) {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            for (i, value) in values.enumerated() {
                let k = Int32(i + 1)
                let rc: Int32
                switch value {
                case .null: rc = sqlite3_bind_null(statement, k)
                case .int(let v): rc = sqlite3_bind_int64(statement, k, v)
                case .double(let v): rc = sqlite3_bind_double(statement, k, v)
                case .text(let v): rc = sqlite3_bind_text(statement, k, v, -1, Self.transient)
                case .blob(let v): rc = v.withUnsafeBytes { sqlite3_bind_blob(statement, k, $0.baseAddress, Int32($0.count), Self.transient) }
                }
                guard rc == SQLITE_OK else { throw SQLiteError(message: connection.lastError) }
            }
        }

        /// Runs the statement once more with new values (an insert).
        func run(_ values: [Value]) throws(SQLiteError) {
            try bind(values)
            while try step() {}
        }

        /// The next row: true while there is one.
        func step() throws(SQLiteError) -> Bool {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            default: throw SQLiteError(message: connection.lastError)
            }
        }

        var columnCount: Int { Int(sqlite3_column_count(statement)) }
        func isNull(_ i: Int) -> Bool { sqlite3_column_type(statement, Int32(i)) == SQLITE_NULL }
        func int(_ i: Int) -> Int64 { sqlite3_column_int64(statement, Int32(i)) }
        func double(_ i: Int) -> Double { sqlite3_column_double(statement, Int32(i)) }

        /// The column as text (numbers in SQLite's own text form); nil for NULL.
        func text(_ i: Int) -> String? {
            guard !isNull(i), let p = sqlite3_column_text(statement, Int32(i)) else { return nil }
            let count = Int(sqlite3_column_bytes(statement, Int32(i)))
            return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
        }

        /// The column as bytes; nil for NULL.
        func blob(_ i: Int) -> [UInt8]? {
            guard !isNull(i) else { return nil }
            let count = Int(sqlite3_column_bytes(statement, Int32(i)))
            guard count > 0, let p = sqlite3_column_blob(statement, Int32(i)) else { return [] }
            return Array(UnsafeRawBufferPointer(start: p, count: count))
        }
    }
}
