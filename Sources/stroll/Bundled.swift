import ChildProcess
import Foundation

/// The walk and places `stroll` uses when none are given: found in the current
/// directory (a checkout, as `make run` runs it), beside the installed binary
/// (`PREFIX/share/stroll/`, where `make install` and the Debian package put
/// them), or in the checkout it was built from.
enum Bundled {
    static let walk = "traces/lime-street-to-campus.gpx"
    static let coffeeHouses = "Fixtures/CityCycleRideLocations.plist"
    static let lectureTheatres = "Fixtures/lecture-theatres.json"
    /// The groups the bundled places are shown with: Cupertino is an ocean away.
    static let groups = ["liverpool", "lecture-theatres"]

    static func path(_ relative: String) -> String {
        let here = FileManager.default.currentDirectoryPath + "/" + relative
        if FileManager.default.fileExists(atPath: here) { return relative }
        if let executable = ChildProcess.currentExecutable {
            let installed = URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/stroll").appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: installed) { return installed }
        }
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let built = checkout.appendingPathComponent(relative).path
        return FileManager.default.fileExists(atPath: built) ? built : relative
    }
}
