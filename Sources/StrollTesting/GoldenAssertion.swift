import Foundation
import Proximity
import Replay

/// A replay that no longer matches its golden timeline: the description is
/// the readable diff a test failure shows (the time, the fix, the rows).
public struct GoldenMismatch: Error, CustomStringConvertible {
    public let file: String
    public let description: String
}

/// A golden timeline that was written rather than compared: the test fails
/// once, saying so, as snapshot testing does; the next run compares.
public struct GoldenRecorded: Error, CustomStringConvertible {
    public let file: String
    public var description: String {
        "Recorded the golden timeline \(file). Run the test again to compare against it (STROLL_RECORD=1 records anew)."
    }
}

/// Checks a replay's order changes against a golden timeline kept beside the
/// test (`__Goldens__/NAME.json` in the test file's folder). When the file is
/// missing, or `STROLL_RECORD=1`, it is written and ``GoldenRecorded`` is
/// thrown; when the replay differs, ``GoldenMismatch`` carries a readable diff.
/// Throwing works alike in Swift Testing (`try expectGolden(...)`) and XCTest.
public func expectGolden(_ recording: ReplayRecording, named name: String, filePath: String = #filePath,
                         environment: [String: String] = ProcessInfo.processInfo.environment) throws {
    let folder = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("__Goldens__")
    let file = folder.appendingPathComponent("\(name).json").path
    if environment["STROLL_RECORD"] == "1" || !FileManager.default.fileExists(atPath: file) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try recording.golden.write(to: file)
        throw GoldenRecorded(file: file)
    }
    let expected = try GoldenTimeline.read(file)
    if let diff = goldenDiff(expected: expected, actual: recording) {
        throw GoldenMismatch(file: file, description: "Golden timeline \(name) (\(file)) differs:\n\(diff)")
    }
}

/// The first difference between a golden timeline and a replay, as rows side by side; nil when they agree.
public func goldenDiff(expected: GoldenTimeline, actual: ReplayRecording) -> String? {
    let got = actual.golden
    func label(_ id: String) -> String { actual.names[id] ?? id }
    func where_(_ t: Double) -> String {
        guard let fix = actual.fix(at: t) else { return "t=\(t) s" }
        return String(format: "t=%g s, fix %.6f, %.6f", t, fix.coordinate.latitude, fix.coordinate.longitude)
    }
    for (k, (want, have)) in zip(expected.entries, got.entries).enumerated() where want != have {
        guard want.group == have.group, abs(want.t - have.t) < 0.0005 else {
            return "order change \(k + 1): expected group \(want.group) at t=\(want.t) s, the replay changed group \(have.group) at \(where_(have.t))"
        }
        var lines = ["order change \(k + 1) of \(expected.entries.count), group \(want.group), at \(where_(want.t)):",
                     "        " + "expected".padding(toLength: 34, withPad: " ", startingAt: 0) + "actual"]
        for row in 0..<max(want.order.count, have.order.count) {
            let w = row < want.order.count ? label(want.order[row]) : "-"
            let h = row < have.order.count ? label(have.order[row]) : "-"
            let mark = w == h ? "  " : "≠ "
            lines.append("  \(mark)\(String(format: "%2d", row + 1)). " + w.padding(toLength: 34, withPad: " ", startingAt: 0) + h)
        }
        return lines.joined(separator: "\n")
    }
    if expected.entries.count != got.entries.count {
        let k = min(expected.entries.count, got.entries.count)
        if k < expected.entries.count {
            let e = expected.entries[k]
            return "order change \(k + 1) is missing: expected group \(e.group) at t=\(e.t) s, nearest \(e.nearest.map(label) ?? "none"); the replay has \(got.entries.count) changes, the golden \(expected.entries.count)"
        }
        let e = got.entries[k]
        return "the replay has an extra order change \(k + 1): group \(e.group) at \(where_(e.t)), nearest \(e.nearest.map(label) ?? "none"); the golden has \(expected.entries.count)"
    }
    return nil
}
