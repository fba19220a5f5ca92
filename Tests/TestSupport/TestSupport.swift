import ChildProcess
import Foundation

/// The package root, found from this file's path (tests read the bundled walks and fixtures).
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A path inside the package.
public func path(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

/// A path inside Fixtures/.
public func fixture(_ relative: String) -> String { path("Fixtures/" + relative) }

/// A small seeded generator for tests (SplitMix64): the same seed, the same cases.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo..<hi, using: &self) }
}

/// Writes a ZIP archive with Python's zipfile (an independent writer): each
/// member `name=path-of-contents`, deflated unless `stored`; `extra` is Python
/// run on the open archive `z` before it closes.
public func makeZip(_ members: [(String, String)], stored: Bool = false, extra: String = "", suffix: String = ".kmz") async throws -> String {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-\(UUID().uuidString)\(suffix)").path
    let script = """
    import sys, zipfile
    out = sys.argv[1]
    pairs = sys.argv[2:]
    method = zipfile.ZIP_STORED if \(stored ? "True" : "False") else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(out, "w", method) as z:
        for i in range(0, len(pairs), 2):
            z.write(pairs[i + 1], pairs[i])
    \(extra.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    """
    let run = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", script, out] + members.flatMap { [$0.0, $0.1] })
    guard run.status == 0 else { throw ZipWriterFailed(message: run.stderr) }
    return out
}

public struct ZipWriterFailed: Error {
    public var message: String
}
