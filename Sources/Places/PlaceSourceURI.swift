/// What a place source names before it is opened: a PostgreSQL URI is a
/// database to query (each machine connects itself), anything else a file.
public enum PlaceSourceURI {
    /// `postgresql://…` or `postgres://…`, libpq's two URI schemes.
    public static func isPostgreSQL(_ source: String) -> Bool {
        source.hasPrefix("postgresql://") || source.hasPrefix("postgres://")
    }
}
