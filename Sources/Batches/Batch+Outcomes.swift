import ChildProcess
import Foundation
import Replay
import Traces

/// How each walk ended: its outputs kept or removed, its status and reason.
extension Batch {
    /// Removes a job's partial outputs and records why it did not finish.
    mutating func discard(_ k: Int, status: Status, reason: String) {
        try? FileManager.default.removeItem(atPath: output(".\(items[k].stem).jsonl.partial"))
        try? FileManager.default.removeItem(atPath: output(".\(items[k].stem).stderr"))
        items[k].status = status
        items[k].reason = reason
        announce(items[k])
    }

    /// A walk's golden: named after its file name, extension included, so walk.gpx and walk.csv keep their own.
    static func golden(for trace: String, in directory: String) -> String {
        (directory as NSString).appendingPathComponent((trace as NSString).lastPathComponent + ".json")
    }

    mutating func finish(_ k: Int, status: ChildExit) {
        if let began = startedAt[k] { items[k].seconds = Date().timeIntervalSince(began) }
        let partial = output(".\(items[k].stem).jsonl.partial")
        let errorsPath = output(".\(items[k].stem).stderr")
        let stderr = FileManager.default.contents(atPath: errorsPath) ?? Data()
        try? FileManager.default.removeItem(atPath: errorsPath)
        switch (status.status, status.signal) {
        case (0, nil):
            let final = output("\(items[k].stem).jsonl")
            do {
                if FileManager.default.fileExists(atPath: final) { try FileManager.default.removeItem(atPath: final) }
                try FileManager.default.moveItem(atPath: partial, toPath: final)
                items[k].status = .done
                items[k].reason = nil
                items[k].outputs = shards == nil ? ["\(items[k].stem).jsonl", "\(items[k].stem).geojson", "\(items[k].stem).svg"] : ["\(items[k].stem).jsonl"]
            } catch {
                items[k].status = .failed
                items[k].reason = "cannot keep the output: \(ErrorWords.reason(error))"
            }
        case (1, nil) where Self.divergence(in: stderr) != nil:
            // Verified against its golden, and different: the first divergence is the reason.
            let final = output("\(items[k].stem).jsonl")
            if FileManager.default.fileExists(atPath: final) { try? FileManager.default.removeItem(atPath: final) }
            try? FileManager.default.moveItem(atPath: partial, toPath: final)
            items[k].status = .diverged
            items[k].reason = Self.divergence(in: stderr)
            items[k].outputs = ["\(items[k].stem).jsonl", "\(items[k].stem).geojson", "\(items[k].stem).svg"]
        case (let code, nil):
            // The reason: the replay's first line on standard error, else its error event.
            var message = String(decoding: stderr, as: UTF8.self).split(separator: "\n").first.map(String.init)
            if message == nil, let events = FileManager.default.contents(atPath: partial) {
                let errorEvent = String(decoding: events, as: UTF8.self).split(separator: "\n").first { $0.contains("\"type\":\"error\"") }
                message = errorEvent.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["message"] as? String
            }
            try? FileManager.default.removeItem(atPath: partial)
            items[k].status = .failed
            items[k].reason = "exit \(code): \(message ?? "no message")"
        case (_, let number?) where number == SIGINT || number == SIGTERM:
            // Stopped by an interrupt sent to the replay itself (each replay leads its own process group,
            // so Ctrl-C at a terminal reaches only the batch, which kills them): interrupted, not failed.
            try? FileManager.default.removeItem(atPath: partial)
            items[k].status = .cancelled
            items[k].reason = "interrupted"
        case (_, let number?):
            try? FileManager.default.removeItem(atPath: partial)
            items[k].status = .failed
            items[k].reason = "killed by signal \(number)\(strsignal(number).map { " (\(String(cString: $0)))" } ?? "")"
        }
        announce(items[k])
    }

    /// The first divergence `replay --verify` printed, if it printed one.
    static func divergence(in stderr: Data) -> String? {
        String(decoding: stderr, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("verify: ") && !$0.hasSuffix("order changes match") }.map(String.init)
    }

}
