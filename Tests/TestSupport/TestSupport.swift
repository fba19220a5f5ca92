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
