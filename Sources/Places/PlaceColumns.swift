/// How a place source can fail as a whole, as the command line reports it:
/// unreadable (missing or unreachable: exit 66), bad data (65), or a usage
/// error (a layer, column or option the user named that is not there: 64).
public enum PlaceSourceFailure: Sendable, Equatable {
    case unreadable, badData, usage
}

/// The columns a table of places (a GeoPackage layer, a PostGIS table) is
/// read with: chosen by the user, else guessed from their names, and what
/// was guessed, so that it can be said.
public struct PlaceColumns: Sendable, Equatable {
    public var id: String?
    public var name: String?
    public var group: String?
    public var subtitle: String?
    /// What was guessed rather than chosen (`name "Title"`, `no name column`);
    /// columns called exactly `name`, `group` and `id` are the convention, not a guess.
    public var guessed: [String] = []

    public static let nameGuesses = ["name", "title", "label"]
    public static let groupGuesses = ["group", "kind", "category", "type", "amenity", "class"]
    public static let subtitleGuesses = ["subtitle", "description"]

    /// A chosen column that is not among the table's.
    public struct Missing: Error, Equatable {
        public var column: String
        public var role: String
    }

    /// Chooses among `columns` (less `geometry`): the chosen ones, which must
    /// exist, else the first whose lower-cased name is in each list of guesses.
    public init(columns: [String], geometry: String, id: String? = nil, name: String? = nil, group: String? = nil,
                idGuesses: [String] = ["id"]) throws(Missing) {
        var guessed: [String] = []
        func pick(_ chosen: String?, _ guesses: [String], _ role: String) throws(Missing) -> String? {
            if let chosen {
                guard columns.contains(chosen) else { throw Missing(column: chosen, role: role) }
                return chosen
            }
            for guess in guesses {
                if let hit = columns.first(where: { $0.lowercased() == guess && $0 != geometry }) {
                    if hit != role { guessed.append("\(role) \"\(hit)\"") }
                    return hit
                }
            }
            return nil
        }
        self.id = try pick(id, idGuesses, "id")
        self.name = try pick(name, Self.nameGuesses, "name")
        self.group = try pick(group, Self.groupGuesses, "group")
        let (n, g) = (self.name, self.group)
        subtitle = columns.first { c in Self.subtitleGuesses.contains(c.lowercased()) && c != n && c != g && c != geometry }
        if self.name == nil { guessed.append("no name column") }
        self.guessed = guessed
    }

    /// "id from column "id", name from ..., group from ...", with the fallbacks named.
    public func description(idFallback: String, nameFallback: String, groupFallback: String, howToChoose: String) -> String {
        func col(_ c: String?, _ otherwise: String) -> String { c.map { "column \"\($0)\"" } ?? otherwise }
        return "id from \(col(id, idFallback)), name from \(col(name, nameFallback)), group from \(col(group, groupFallback))"
            + (subtitle.map { ", subtitle from column \"\($0)\"" } ?? "")
            + (guessed.isEmpty ? "" : " (guessed: \(guessed.joined(separator: ", ")); \(howToChoose) choose)")
    }
}
