import Foundation
import Proximity

/// What the apps remember between runs (as the NotesBrowser and To-Do seeds
/// do): the chosen group, the sort mode, the chosen modules and the selected
/// place. Saved as JSON; a missing file gives the defaults, a corrupt one the
/// defaults and a warning.
public struct RememberedState: Codable, Equatable, Sendable {
    public var group: String?
    public var sortMode: SortMode = .distance
    public var modules: [String]?
    public var selected: String?

    public init(group: String? = nil, sortMode: SortMode = .distance, modules: [String]? = nil, selected: String? = nil) {
        self.group = group
        self.sortMode = sortMode
        self.modules = modules
        self.selected = selected
    }

    /// The state in `data`, or the defaults with the reason they were used.
    public static func decode(_ data: Data) -> (state: RememberedState, warning: String?) {
        do {
            return (try JSONDecoder().decode(RememberedState.self, from: data), nil)
        } catch {
            return (RememberedState(), "not a state file (\(error)); starting from the defaults")
        }
    }

    /// Reads `path`: nothing there gives the defaults silently.
    public static func load(_ path: String) -> (state: RememberedState, warning: String?) {
        guard FileManager.default.fileExists(atPath: path) else { return (RememberedState(), nil) }
        guard let data = FileManager.default.contents(atPath: path) else { return (RememberedState(), "cannot be read; starting from the defaults") }
        return decode(data)
    }

    /// Updates the state file at `path` with what a finished replay leaves: the
    /// selected pin, the sort mode and the group shown (what else it holds is kept).
    public static func remember(selected: String?, sortMode: SortMode, group: String?, at path: String) throws {
        var state = load(path).state
        state.selected = selected
        state.sortMode = sortMode
        state.group = group
        try state.save(path)
    }

    /// Writes atomically (a temporary file, then a rename), so a crash never leaves half a file.
    public func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

extension SortMode: Codable {}
