import Foundation
import Proximity
import Replay
import Testing

/// When a golden timeline is written rather than only compared, as
/// snapshot tests choose (pointfree's swift-snapshot-testing has the same
/// four). Chosen per call (`record:`), else by a ``GoldenRecording`` trait on
/// the test or its suite, else by the `STROLL_RECORD` environment variable
/// (`missing`, `failed`, `never`, `all`; `1` means `all`), else ``missing``.
public enum GoldenRecordMode: String, Sendable, CaseIterable {
    /// Write a golden that is not there yet (one issue says so); compare one that is.
    case missing
    /// As ``missing``, and write a golden anew when the replay differs from it
    /// (the mismatch is still an issue, with its diff).
    case failed
    /// Never write: a missing golden is an issue. What CI runs with.
    case never
    /// Write every golden anew (each writing is an issue, so that a run that
    /// records cannot pass unnoticed).
    case all

    /// The mode a ``GoldenRecording`` trait set for the running test.
    @TaskLocal public static var scoped: GoldenRecordMode?

    /// `STROLL_RECORD`'s mode: nil when unset or not a mode.
    public static func environment(_ variables: [String: String] = ProcessInfo.processInfo.environment) -> GoldenRecordMode? {
        guard let value = variables["STROLL_RECORD"]?.lowercased() else { return nil }
        if value == "1" || value == "true" { return .all }
        return GoldenRecordMode(rawValue: value)
    }

    /// The mode in force: the call's, the trait's, the environment's, ``missing``.
    public static func resolved(_ call: GoldenRecordMode?, environment variables: [String: String] = ProcessInfo.processInfo.environment) -> GoldenRecordMode {
        call ?? scoped ?? environment(variables) ?? .missing
    }
}

/// A test or suite trait choosing the ``GoldenRecordMode`` of every golden
/// assertion in it: `@Suite(.goldens(record: .failed))`.
public struct GoldenRecording: TestTrait, SuiteTrait, TestScoping {
    /// The mode the assertions in the test or suite record in.
    public let mode: GoldenRecordMode
    /// A suite's mode reaches the tests of its nested suites.
    public var isRecursive: Bool { true }

    /// Runs the test with ``mode`` in force (``GoldenRecordMode/scoped``).
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await GoldenRecordMode.$scoped.withValue(mode) { try await function() }
    }
}

extension Trait where Self == GoldenRecording {
    /// Every golden assertion in the test or suite records in `mode`.
    public static func goldens(record mode: GoldenRecordMode) -> Self { GoldenRecording(mode: mode) }
}

/// What a golden assertion found.
public enum GoldenOutcome: Equatable, Sendable {
    /// The replay's order changes are the golden's.
    case matched
    /// The golden was written (first recording, or the mode asked for it).
    case recorded(path: String)
    /// The replay differs; `diff` shows the differing changes side by side.
    case mismatched(path: String, diff: String)
    /// No golden, and the mode writes none.
    case missing(path: String)
    /// The golden cannot be read (corrupt, or of another format).
    case unreadable(path: String, reason: String)

    /// Whether the replay matched its golden.
    public var passed: Bool { self == .matched }
}

/// The folder beside a test file where its goldens live: `__Goldens__`.
/// SwiftPM warns about files it is not told about: a test target that keeps
/// goldens says `exclude: ["__Goldens__"]`.
public func goldenFolder(for filePath: String) -> String {
    URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("__Goldens__").path
}

/// Compares a replay's order changes with the golden timeline `NAME.json` in
/// `folder` (by default `__Goldens__` beside the calling test file), and
/// writes it as `record` says (``GoldenRecordMode``). Nothing is reported:
/// ``expectGolden(_:named:record:in:sourceLocation:)`` reports.
public func checkGolden(_ recording: ReplayRecording, named name: String, record: GoldenRecordMode? = nil, in folder: String,
                        environment: [String: String] = ProcessInfo.processInfo.environment) -> GoldenOutcome {
    let mode = GoldenRecordMode.resolved(record, environment: environment)
    let path = URL(fileURLWithPath: folder).appendingPathComponent("\(name).json").path
    let exists = FileManager.default.fileExists(atPath: path)
    func write() -> GoldenOutcome {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try recording.golden.naming(recording.names).write(to: path)
            return .recorded(path: path)
        } catch {
            return .unreadable(path: path, reason: "cannot write it: \(error)")
        }
    }
    if mode == .all { return write() }
    guard exists else { return mode == .never ? .missing(path: path) : write() }
    let expected: GoldenTimeline
    do {
        expected = try GoldenTimeline.read(path)
    } catch {
        if mode == .failed { return write() }
        return .unreadable(path: path, reason: "\(error)")
    }
    guard let diff = goldenDiff(expected: expected, actual: recording) else { return .matched }
    if mode == .failed, case .recorded = write() { return .mismatched(path: path, diff: diff + "\n(recorded anew: record mode failed)") }
    return .mismatched(path: path, diff: diff)
}

/// The golden assertion, as `#expect` is: the replay's order changes against
/// the golden timeline `NAME.json` beside the calling test (``checkGolden(_:named:record:in:environment:)``).
/// Anything but a match is recorded as one issue at the call: a diff with the
/// differing order changes side by side (names, ids, times), a first
/// recording saying where it wrote, a missing or unreadable golden saying
/// what to do. Returns whether it matched; the test goes on either way.
@discardableResult
public func expectGolden(_ recording: ReplayRecording, named name: String, record: GoldenRecordMode? = nil, in folder: String? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    let outcome = checkGolden(recording, named: name, record: record, in: folder ?? goldenFolder(for: sourceLocation.filePath))
    if let message = goldenMessage(outcome, named: name) { Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation) }
    return outcome.passed
}

/// The golden assertion, as `#require` is: ``expectGolden(_:named:record:in:sourceLocation:)``,
/// then, when it did not match, the test stops there. Under XCTest (no Swift
/// Testing test running) the mismatch is thrown as ``GoldenFailure``, for
/// XCTest to report.
public func requireGolden(_ recording: ReplayRecording, named name: String, record: GoldenRecordMode? = nil, in folder: String? = nil,
                          sourceLocation: SourceLocation = #_sourceLocation) throws {
    let outcome = checkGolden(recording, named: name, record: record, in: folder ?? goldenFolder(for: sourceLocation.filePath))
    guard let message = goldenMessage(outcome, named: name) else { return }
    guard Test.current != nil else { throw GoldenFailure(outcome: outcome, description: message) }
    // `#require`'s own failure: one issue where the assertion stands, and
    // the test stops without a second "Caught error" for what was thrown.
    let matched = false
    try #require(matched, Comment(rawValue: message), sourceLocation: sourceLocation)
}

/// A golden that did not match, thrown by ``requireGolden(_:named:record:in:sourceLocation:)``
/// where no Swift Testing test runs (XCTest).
public struct GoldenFailure: Error, CustomStringConvertible, Sendable {
    /// What the assertion found.
    public let outcome: GoldenOutcome
    /// The message an issue would have shown.
    public let description: String
}

/// The issue's text for an outcome; nil for a match.
public func goldenMessage(_ outcome: GoldenOutcome, named name: String) -> String? {
    let exclude = "(a test target keeping goldens says exclude: [\"__Goldens__\"] in Package.swift)"
    switch outcome {
    case .matched:
        return nil
    case .recorded(let path):
        return "Recorded the golden timeline \(name) at \(path). Run the test again to compare against it \(exclude)."
    case .mismatched(let path, let diff):
        return "Golden timeline \(name) (\(path)) differs:\n\(diff)"
    case .missing(let path):
        return "No golden timeline \(name) at \(path), and the record mode is never: record it with STROLL_RECORD=missing."
    case .unreadable(let path, let reason):
        return "The golden timeline \(name) at \(path) cannot be read (\(reason)): record it anew with STROLL_RECORD=all, or delete it."
    }
}

extension GoldenTimeline {
    /// The timeline with each change's names beside its ids, for people reading the file.
    func naming(_ names: [String: String]) -> GoldenTimeline {
        var named = self
        for k in named.entries.indices { named.entries[k].names = named.entries[k].order.map { names[$0] ?? $0 } }
        return named
    }
}

/// Every order change in which a golden timeline and a replay differ, each as
/// its rows side by side (names and ids) under its times and groups; nil when
/// they agree. At most `limit` changes are shown, and how many more differ.
public func goldenDiff(expected: GoldenTimeline, actual: ReplayRecording, limit: Int = 3) -> String? {
    let got = actual.golden
    func label(_ id: String, _ stored: String?) -> String {
        let name = actual.names[id] ?? stored
        return name.map { "\($0) (\(id))" } ?? id
    }
    func when(_ e: GoldenTimeline.Entry) -> String {
        guard let fix = actual.fix(at: e.t) else { return "\(e.group) at t=\(e.t) s" }
        return String(format: "%@ at t=%g s, fix %.6f, %.6f", e.group, e.t, fix.coordinate.latitude, fix.coordinate.longitude)
    }
    let width = 44
    var blocks: [String] = []
    var differing = 0
    for k in 0..<max(expected.entries.count, got.entries.count) {
        let want = k < expected.entries.count ? expected.entries[k] : nil
        let have = k < got.entries.count ? got.entries[k] : nil
        if let want, let have, want.sameChange(as: have) { continue }
        differing += 1
        guard blocks.count < limit else { continue }
        var lines = ["order change \(k + 1) (the golden has \(expected.entries.count), the replay \(got.entries.count)):",
                     "    " + "expected: \(want.map(when) ?? "no change")".padding(toLength: width + 5, withPad: " ", startingAt: 0)
                        + "actual: \(have.map(when) ?? "no change")"]
        let wantOrder = want?.order ?? [], haveOrder = have?.order ?? []
        for row in 0..<max(wantOrder.count, haveOrder.count) {
            let w = row < wantOrder.count ? label(wantOrder[row], want?.names?[safe: row]) : "-"
            let h = row < haveOrder.count ? label(haveOrder[row], nil) : "-"
            let mark = w == h ? "  " : "≠ "
            lines.append("  \(mark)\(String(format: "%2d", row + 1)). " + w.padding(toLength: width, withPad: " ", startingAt: 0) + " " + h)
        }
        blocks.append(lines.joined(separator: "\n"))
    }
    guard differing > 0 else { return nil }
    if differing > blocks.count { blocks.append("… and \(differing - blocks.count) more order changes differ") }
    return blocks.joined(separator: "\n")
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
