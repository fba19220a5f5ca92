import ArgumentParser
import Foundation

/// The command line as people type it, made ready for the parser.
enum CommandWords {
    /// Negative numbers as values. The parser reads every word that begins
    /// with `-` as options, so `-33.8,151.2` (a southern latitude) and `-5`
    /// would never reach the option or argument they were typed for:
    /// - a `LAT,LON` word with a leading minus gets a leading space (a value
    ///   to the parser; every `LAT,LON` reader trims it), wherever it stands;
    /// - a negative number right after a `--name` option becomes
    ///   `--name=-5`, so the option's own check refuses it or takes it.
    /// Words after `--` are left as they are.
    static func prepare(_ words: [String]) -> [String] {
        var out: [String] = []
        out.reserveCapacity(words.count)
        var terminated = false
        for word in words {
            if terminated || word == "--" {
                terminated = true
                out.append(word)
                continue
            }
            if isCoordinatePair(word) {
                out.append(" " + word)
            } else if isNegativeNumber(word), let last = out.last, last.hasPrefix("--"), last.count > 2, !last.contains("=") {
                out[out.count - 1] = last + "=" + word
            } else {
                out.append(word)
            }
        }
        return out
    }

    /// `-33.8,151.2`, `-33.8,-70`, `-1e-3,2`: a pair of numbers whose first is negative.
    static func isCoordinatePair(_ word: String) -> Bool {
        guard word.hasPrefix("-") else { return false }
        let parts = word.split(separator: ",", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { Double($0.trimmingCharacters(in: .whitespaces)) != nil }
    }

    /// `-5`, `-0.5`, `-.5`: a negative decimal number.
    static func isNegativeNumber(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word.count > 1, let second = word.dropFirst().first, second.isNumber || second == "." else { return false }
        return Double(word) != nil
    }

    /// The words that name a command (`stroll route …`), and `help`.
    static func commandNames(_ commands: [any ParsableCommand.Type]) -> [String] {
        commands.flatMap { command -> [String] in
            let configuration = command.configuration
            return [configuration.commandName ?? ""] + configuration.aliases
        }.filter { !$0.isEmpty } + ["help"]
    }

    /// Why the first word is neither a command nor a trace to replay: it is
    /// a bare word (no `/`, no extension) that names no file. `stroll rout`
    /// would otherwise be read as `stroll replay rout`.
    static func unknownCommand(_ words: [String], commands: [String], fileExists: (String) -> Bool) -> String? {
        guard let first = words.first, !first.hasPrefix("-"), !first.hasPrefix(" "), !commands.contains(first) else { return nil }
        guard !first.contains("/"), !first.contains("."), !first.contains(":"), !fileExists(first) else { return nil }
        let nearest = commands.filter { $0 != "help" }
            .map { (name: $0, distance: editDistance(first.lowercased(), $0)) }
            .min { ($0.distance, $0.name) < ($1.distance, $1.name) }
        if let nearest, nearest.distance <= max(2, nearest.name.count / 3) || nearest.name.hasPrefix(first.lowercased()) {
            return "unknown command '\(first)' (did you mean '\(nearest.name)'?)"
        }
        return "unknown command '\(first)' (the commands: \(commands.filter { $0 != "help" }.joined(separator: ", ")); a trace to replay is a file that exists)"
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// ArgumentParser's message with the one prefix Stroll's own errors use.
    static func lowercasePrefix(_ message: String) -> String {
        message.hasPrefix("Error: ") ? "error: " + message.dropFirst("Error: ".count) : message
    }
}
