import ArgumentParser
import Testing
@testable import stroll

@Suite("Every command's help on an 80-column terminal")
struct HelpTextTests {
    /// Every command and subcommand, with its path (`stroll trace info`).
    static func commands() -> [(path: String, type: any ParsableCommand.Type)] {
        var found: [(String, any ParsableCommand.Type)] = []
        func visit(_ type: any ParsableCommand.Type, _ path: String) {
            found.append((path, type))
            for sub in type.configuration.subcommands {
                visit(sub, path + " " + sub._commandName)
            }
        }
        visit(Stroll.self, "stroll")
        return found
    }

    /// A help text's discussion lines that a terminal of `columns` would wrap
    /// although they are laid out by hand: table rows and examples, the lines
    /// that start indented. (Prose paragraphs are one line each, for the
    /// terminal to wrap.)
    static func overlong(_ discussion: String, columns: Int) -> [String] {
        discussion.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.hasPrefix("  ") && $0.count > columns }
            .map(String.init)
    }

    @Test("table rows and examples fit in 80 columns, so they are shown as laid out and can be copied")
    func indentedLinesFit() {
        let commands = Self.commands()
        #expect(commands.count >= 14)
        for (path, type) in commands {
            let lines = Self.overlong(type.configuration.discussion, columns: 80)
            #expect(lines.isEmpty, "`\(path) --help` wraps: \(lines)")
        }
    }

    @Test("the check finds a row that would wrap")
    func checkCanFail() {
        let row = "  stroll route 43.7396,7.4272 43.7316,7.4197 --osm monaco-latest.osm.pbf -o walk.gpx"
        #expect(Self.overlong("Examples:\n" + row + "\n  stroll route a b", columns: 80) == [row])
        #expect(Self.overlong("A paragraph that is long enough to be wrapped by the terminal when it is shown at eighty columns.",
                              columns: 80).isEmpty)
    }
}
