import Foundation

/// Elapsed time as a clock reads it, `HH:MM:SS` (whole seconds, rounded down):
/// the progress lines of replays, batches and benchmarks.
public enum ElapsedTime {
    public static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.down))
        return String(format: "%02d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
    }
}
