import Foundation

/// The walk and places `stroll` uses when none are given: found in the current
/// directory (a checkout, as `make run` runs it) or in the checkout it was built from.
enum Bundled {
    static let walk = "traces/lime-street-to-campus.gpx"
    static let coffeeHouses = "Fixtures/CityCycleRideLocations.plist"
    static let lectureTheatres = "Fixtures/lecture-theatres.json"
    /// The groups the bundled places are shown with: Cupertino is an ocean away.
    static let groups = ["liverpool", "lecture-theatres"]

    static func path(_ relative: String) -> String {
        let here = FileManager.default.currentDirectoryPath + "/" + relative
        if FileManager.default.fileExists(atPath: here) { return relative }
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let built = checkout.appendingPathComponent(relative).path
        return FileManager.default.fileExists(atPath: built) ? built : relative
    }
}
