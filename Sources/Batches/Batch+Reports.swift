import ChildProcess
import Foundation
import Replay
import Traces

/// What a batch leaves behind: the summary table, the JUnit report and status.json.
extension Batch {
    /// The table at the end: walks, passed, diverged, failed, cancelled, time.
    public func summary(seconds: Double) -> String {
        func count(_ s: Status) -> Int { items.filter { $0.status == s }.count }
        let rows = [("walks", "\(items.count)"), ("passed", "\(count(.done))"), ("diverged", "\(count(.diverged))"), ("failed", "\(count(.failed))"),
                    ("cancelled", "\(count(.cancelled))"), ("time", String(format: "%.1f s", seconds))]
        var text = ""
        for (name, value) in rows { text += "  \(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(value)\n" }
        return text
    }

    /// JUnit XML as GitHub Actions, GitLab and Jenkins read it: one test suite,
    /// a test case per walk with its time; a divergence or failure as the
    /// failure's message; cancelled walks skipped.
    public func junitXML(seconds: Double) -> String {
        Self.junitXML(items, seconds: seconds)
    }

    /// The JUnit report of walks that ran (or did not), without a batch: the
    /// statuses of a status.json, or of walks replayed another way.
    public static func junitXML(_ items: [Item], seconds: Double) -> String {
        let escape = TraceWriter.escape
        let failures = items.filter { $0.status == .diverged }.count
        let errors = items.filter { $0.status == .failed }.count
        let skipped = items.filter { $0.status == .cancelled || $0.status == .queued }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"stroll batch\" tests=\"\(items.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(String(format: "%.3f", seconds))\">\n"
        xml += "  <testsuite name=\"stroll batch\" tests=\"\(items.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(String(format: "%.3f", seconds))\">\n"
        for item in items {
            let time = String(format: "%.3f", item.seconds ?? 0)
            xml += "    <testcase classname=\"stroll.batch\" name=\"\(escape(item.trace))\" time=\"\(time)\""
            let reason = escape(item.reason ?? "")
            switch item.status {
            case .done:
                xml += "/>\n"
            case .diverged:
                xml += ">\n      <failure message=\"\(reason)\" type=\"diverged\">\(reason)</failure>\n    </testcase>\n"
            case .failed:
                xml += ">\n      <error message=\"\(reason)\" type=\"failed\">\(reason)</error>\n    </testcase>\n"
            case .cancelled, .queued, .running:
                xml += ">\n      <skipped message=\"\(reason.isEmpty ? "not run" : reason)\"/>\n    </testcase>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }


    /// status.json, written atomically so an interrupted run never leaves half a file.
    func writeStatus() {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(StatusFile(jobs: jobs, traces: items)) else { return }
        try? data.write(to: URL(fileURLWithPath: statusPath), options: .atomic)
    }
}
