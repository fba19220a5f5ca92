import ChildProcess
import Foundation
import Testing
import TestSupport
@testable import stroll

/// What a newcomer types in the first hour, from the README, docs/ and every
/// `--help`, with the answers a well-made tool gives.
@Suite("A user's first hour")
struct FirstHourTests {
    static let monaco = "Fixtures/osm/monaco-latest.osm.pbf"

    func directory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-first-hour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("stroll --version prints one line: the version and the commit")
    func version() async throws {
        let run = try await StrollBinary.run(["--version"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let version = try String(contentsOfFile: "VERSION", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(run.stdout.hasPrefix("stroll "), "\(run.stdout)")
        #expect(run.stdout.contains("(commit "), "\(run.stdout)")
        // The VERSION file's, or a git tag's on the commit built.
        #expect(run.stdout.contains(version) || run.stdout.range(of: #"stroll \S+ \(commit [0-9a-f]{12}\)"#, options: .regularExpression) != nil)
    }

    @Test("stroll batch runs its replays when stroll is found on PATH by its bare name")
    func batchFromPath() async throws {
        let binary = try #require(StrollBinary.url)
        let out = try directory().appendingPathComponent("runs")
        // argv[0] is then "stroll", which names no file in the working directory.
        let run = try await ChildProcess.run("/usr/bin/env", ["PATH=\(binary.deletingLastPathComponent().path):/usr/bin:/bin", "stroll",
                                                             "batch", "traces/campus-loop.gpx", "traces/pier-head-to-guild.gpx", "--out", out.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(!run.stdout.contains("SpawnError") && !run.stderr.contains("SpawnError"))
        let status = try String(contentsOf: out.appendingPathComponent("status.json"), encoding: .utf8)
        #expect(status.components(separatedBy: "\"done\"").count - 1 == 2, "\(status)")
    }

    @Test("the running program's own path is an absolute executable, whatever argv[0] says")
    func currentExecutable() throws {
        let path = try #require(ChildProcess.currentExecutable)
        #expect(path.hasPrefix("/"))
        #expect(FileManager.default.isExecutableFile(atPath: path))
    }

    @Test("LAT,LON with a negative latitude reaches every command as typed", arguments: [
        ["route", "-33.8,151.2", "43.735,7.42", "--osm", monaco],
        ["route", "43.7396,7.4272", "-33.8,151.2", "--osm", monaco],
        ["route", "43.7396,7.4272", "43.7316,7.4197", "--via", "-33.8,151.2", "--osm", monaco],
        ["replay", "--route", "43.74,7.428", "-33.8,151.2", "--osm", monaco],
    ])
    func negativeCoordinates(_ arguments: [String]) async throws {
        let run = try await StrollBinary.run(arguments)
        // The point is read and found far from Monaco's streets: bad input for
        // this extract, not a usage error of the command line.
        #expect(run.status == 65, "\(arguments): exit \(run.status): \(run.stderr)")
        #expect(run.stderr.contains("-33.8,151.2") && run.stderr.contains("walkable"), "\(run.stderr)")
    }

    @Test("--near and --reverse take a southern latitude, in both spellings")
    func negativeOptions() async throws {
        for near in [["--near", "-33.8,151.2"], ["--near=-33.8,151.2"]] {
            let run = try await StrollBinary.run(["search", "--osm", Self.monaco, "--radius", "500"] + near + ["cafe"])
            #expect(run.status == 0, "\(near): \(run.stderr)")
            #expect(!run.stderr.contains("Missing value"))
        }
        let reverse = try await StrollBinary.run(["geocode", "--osm", Self.monaco, "--reverse", "-33.8,151.2", "--json"])
        #expect(reverse.status == 0, "\(reverse.stderr)")
        #expect(reverse.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test("the words of a command line made ready for the parser")
    func commandWords() {
        #expect(CommandWords.prepare(["route", "-33.8,151.2", "-22.9,-43.2"]) == ["route", " -33.8,151.2", " -22.9,-43.2"])
        #expect(CommandWords.prepare(["--within", "-5"]) == ["--within=-5"])
        #expect(CommandWords.prepare(["--json", "-o", "x.gpx"]) == ["--json", "-o", "x.gpx"])
        #expect(CommandWords.prepare(["--", "-33.8,151.2"]) == ["--", "-33.8,151.2"])
        #expect(CommandWords.editDistance("rout", "route") == 1)
    }

    @Test("a misspelt command is refused with the nearest one, not replayed", arguments: [
        ("rout", "did you mean 'route'?"),
        ("serch", "did you mean 'search'?"),
        ("frobnicate", "unknown command 'frobnicate'"),
    ])
    func unknownCommand(_ word: String, _ message: String) async throws {
        let run = try await StrollBinary.run([word, "43.7,7.4"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("error: unknown command '\(word)'"), "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("a missing trace is still a missing file, not an unknown command")
    func missingTrace() async throws {
        let run = try await StrollBinary.run(["traces/no-such-walk.gpx"])
        #expect(run.status == 66, "\(run.stderr)")
        #expect(!run.stderr.contains("unknown command"))
    }

    @Test("one count of order changes: the summary, --verify, the golden and the changed rankings")
    func orderChanges() async throws {
        let dir = try directory()
        let golden = dir.appendingPathComponent("golden.json").path
        let run = try await StrollBinary.run(["--format", "jsonl", "--record", golden])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let changed = lines.filter { $0["type"] as? String == "ranking" && $0["changed"] as? Bool == true }.count
        let summary = try #require(lines.last { $0["type"] as? String == "summary" })
        #expect(summary["rankingChanges"] as? Int == changed)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: golden))) as? [String: Any])
        #expect((entries["entries"] as? [Any])?.count == changed)
        let verify = try await StrollBinary.run(["--verify", golden])
        #expect(verify.status == 0)
        #expect(verify.stderr.contains("\(changed) order changes match"), "\(verify.stderr)")
        #expect(verify.stdout.contains("; \(changed) order changes."), "\(verify.stdout.suffix(200))")
        #expect(changed == 42)
    }

    @Test("an output that cannot be created is refused before the replay: exit 73, the path named, nothing written",
          arguments: ["--svg", "--html", "--geojson", "--gpx", "--gpkg", "--record"])
    func outputRefused(_ option: String) async throws {
        let path = "/nonexistent-\(UUID().uuidString)/x.out"
        let run = try await StrollBinary.run(["replay", "traces/campus-loop.gpx", option, path])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stdout.isEmpty, "the replay ran: \(run.stdout.prefix(200))")
        #expect(run.stderr.hasPrefix("error: cannot create \(path): No such file or directory"), "\(run.stderr)")
        #expect(!run.stderr.contains("operation could not be completed"))
    }

    @Test("route -o, trace convert and places convert refuse an output folder that is not there")
    func convertRefused() async throws {
        let path = "/nonexistent-\(UUID().uuidString)/x.gpx"
        for arguments in [["route", "43.7396,7.4272", "43.7316,7.4197", "--osm", Self.monaco, "-o", path],
                          ["trace", "convert", "traces/campus-loop.gpx", path],
                          ["places", "convert", "Fixtures/lecture-theatres.json", path + ".csv"]] {
            let run = try await StrollBinary.run(arguments)
            #expect(run.status == 73, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("error: cannot create /nonexistent-"), "\(run.stderr)")
        }
    }

    @Test("a write that fails midway (a file past ulimit -f) exits 74 naming it, with no file left", arguments: [
        (["--geojson", "OUT"], "OUT"), (["--format", "jsonl"], "standard output"),
    ])
    func writeFails(_ options: [String], _ named: String) async throws {
        let dir = try directory()
        let out = dir.appendingPathComponent("run.out").path
        let binary = try #require(StrollBinary.url).path
        let arguments = options.map { $0 == "OUT" ? out : $0 }.joined(separator: " ")
        let run = try await ChildProcess.run("/bin/sh", ["-c", "ulimit -f 10; exec \"$0\" replay traces/campus-loop.gpx \(arguments) > \(dir.path)/stdout",
                                                         binary])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains(named == "OUT" ? out : named) && run.stderr.contains("File too large"), "\(run.stderr)")
        if named == "OUT" {
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "stdout" }
            #expect(left.isEmpty, "left behind: \(left)")
        }
    }

    @Test("a closed pipe on standard output ends quietly")
    func closedPipe() async throws {
        let binary = try #require(StrollBinary.url).path
        let run = try await ChildProcess.run("/bin/sh", ["-c", "\"$0\" replay traces/campus-loop.gpx --format jsonl | head -c 10 > /dev/null; echo $?", binary])
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        #expect(["0", "141"].contains(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test("trace info reports what a waypoint-only file replays")
    func waypointsOnly() async throws {
        let dir = try directory()
        let xcode = dir.appendingPathComponent("campus-xcode.gpx").path
        let convert = try await StrollBinary.run(["trace", "convert", "traces/campus-loop.gpx", xcode, "--to", "xcode-gpx"])
        #expect(convert.status == 0, "\(convert.stderr)")
        let info = try await StrollBinary.run(["trace", "info", xcode, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(object["points"] as? Int == 0)
        #expect(object["waypoints"] as? Int == 309)
        #expect(object["replays"] as? String == "waypoints")
        #expect(object["replayedPoints"] as? Int == 309)
        let length = try #require(object["replayedLength_m"] as? Double)
        #expect(abs(length - 2060.4) < 0.1, "\(length)")
        let text = try await StrollBinary.run(["trace", "info", xcode])
        #expect(text.stdout.contains("replays     309 waypoints, 2060.4 m"), "\(text.stdout)")
        #expect(!text.stdout.contains("segments:  points"))
    }

    @Test("route matches names as search does, and lists the candidates of an ambiguous one")
    func placeNames() async throws {
        let folded = try await StrollBinary.run(["route", "musee oceanographique", "Casino de Monte Carlo", "--osm", Self.monaco, "--json"])
        #expect(folded.status == 0, "\(folded.stderr)")
        let ambiguous = try await StrollBinary.run(["route", "musee oceanographique", "casino", "--osm", Self.monaco, "--json"])
        #expect(ambiguous.status == 65)
        #expect(ambiguous.stdout.isEmpty)
        #expect(ambiguous.stderr.hasPrefix("error: \"casino\" names "), "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("Casino de Monte Carlo (node/"), "\(ambiguous.stderr)")
        let byID = try await StrollBinary.run(["route", "musee oceanographique", "node/4416197079", "--osm", Self.monaco, "--json"])
        #expect(byID.status == 0, "\(byID.stderr)")
        #expect(byID.stdout == folded.stdout)
    }

    @Test("route -o confirms what it wrote on standard error")
    func routeConfirms() async throws {
        let out = try directory().appendingPathComponent("walk.gpx").path
        let run = try await StrollBinary.run(["route", "43.7396,7.4272", "43.7316,7.4197", "--osm", Self.monaco, "-o", out])
        #expect(run.status == 0)
        #expect(run.stderr.hasPrefix("wrote \(out) (gpx): "), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    @Test("numeric options refuse values out of range in either spelling", arguments: [
        "--distance-filter", "--within", "--rate", "--walking-speed", "--region-span", "--speed", "--visit-radius", "--visit-minutes",
    ])
    func outOfRange(_ option: String) async throws {
        for spelling in [[option, "-5"], ["\(option)=-5"]] {
            let run = try await StrollBinary.run(["replay", "traces/campus-loop.gpx"] + spelling)
            #expect(run.status == 64, "\(spelling): exit \(run.status)")
            #expect(run.stderr.hasPrefix("error: \(option) must be"), "\(spelling): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test("places that are not a places file are refused in Stroll's words; an empty one is said")
    func placesWords() async throws {
        let run = try await StrollBinary.run(["replay", "traces/campus-loop.gpx", "--places", "traces/campus-loop.gpx"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("error: traces/campus-loop.gpx: not a file of places that Stroll reads (a .gpx file is a trace"), "\(run.stderr)")
        #expect(!run.stderr.contains("operation could not be completed") && !run.stderr.contains("correct format"))
        let dir = try directory()
        let empty = dir.appendingPathComponent("none.json").path
        try Data("[]".utf8).write(to: URL(fileURLWithPath: empty))
        let none = try await StrollBinary.run(["replay", "traces/campus-loop.gpx", "--places", empty])
        #expect(none.stderr.contains("warning: \(empty): no places"), "\(none.stderr)")
        #expect(none.stdout.hasPrefix("Replaying campus-loop.gpx against 0 places\n"), "\(none.stdout.prefix(100))")
        let one = dir.appendingPathComponent("one.json").path
        try Data(#"[{"name":"Leaf","latitude":53.4012,"longitude":-2.9782}]"#.utf8).write(to: URL(fileURLWithPath: one))
        let single = try await StrollBinary.run(["replay", "traces/campus-loop.gpx", "--places", one])
        #expect(single.stdout.hasPrefix("Replaying campus-loop.gpx against 1 place (one)"), "\(single.stdout.prefix(100))")
    }

    @Test("usage errors speak with the one prefix, error:")
    func onePrefix() async throws {
        let run = try await StrollBinary.run(["route"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("error: "), "\(run.stderr)")
        #expect(!run.stderr.contains("Error: "))
    }

    @Test("Foundation's words never reach the user", arguments: [
        ["replay", "traces/campus-loop.gpx", "--places", "/no/such/places.json"],
        ["trace", "info", "/no/such/walk.gpx"],
        ["replay", "traces/campus-loop.gpx", "--verify", "/no/such/golden.json"],
    ])
    func noFoundationWords(_ arguments: [String]) async throws {
        let run = try await StrollBinary.run(arguments)
        #expect(run.status == 66, "\(arguments): exit \(run.status): \(run.stderr)")
        #expect(run.stderr.hasPrefix("error: "), "\(run.stderr)")
        #expect(!run.stderr.contains("operation could not be completed"), "\(run.stderr)")
    }

    @Test("stroll bench on a debug build says so on standard error, and only there")
    func benchOnDebug() async throws {
        let run = try await StrollBinary.run(["bench", "--places", "10", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) is [String: Any])
        #if DEBUG
        #expect(run.stderr.contains("warning: this stroll is a debug build"), "\(run.stderr)")
        #else
        #expect(!run.stderr.contains("debug build"))
        #endif
    }
}
