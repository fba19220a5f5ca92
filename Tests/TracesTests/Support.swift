import Foundation
import TestSupport
import Traces


/// Reads GPX or CSV text given in the test.
func readGPX(_ text: String, name: String = "test.gpx") throws(TraceError) -> Trace {
    try TraceReader.read(bytes: Data(text.utf8), name: name, format: .gpx)
}

func readCSV(_ text: String, name: String = "test.csv") throws(TraceError) -> Trace {
    try TraceReader.read(bytes: Data(text.utf8), name: name, format: .csv)
}

/// The error a read gives, or nil when it succeeds.
func readError(_ body: () throws(TraceError) -> Trace) -> TraceError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// A temporary file with `contents`, removed by the caller.
func temporaryFile(_ contents: Data, suffix: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-\(UUID().uuidString)\(suffix)").path
    try contents.write(to: URL(fileURLWithPath: path))
    return path
}
