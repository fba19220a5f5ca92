import Foundation
import Traces

/// `--plan FILE`: walks with their own replay options and goldens, kept beside
/// the walks. `{"walks": [{"trace": "walk.gpx", "options": ["--noise",
/// "gaussian"], "golden": "goldens/walk.json"}]}` (or the array alone); paths
/// are relative to the plan's folder; `options` and `golden` may be left out.
public struct BatchPlan: Decodable, Sendable {
    /// One walk of the plan: its trace, its own `stroll replay` options and its golden.
    public struct Walk: Decodable, Sendable {
        public var trace: String
        public var options: [String]
        public var golden: String?

        public init(trace: String, options: [String], golden: String?) {
            self.trace = trace
            self.options = options
            self.golden = golden
        }

        enum CodingKeys: String, CodingKey { case trace, options, golden }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            trace = try c.decode(String.self, forKey: .trace)
            options = try c.decodeIfPresent([String].self, forKey: .options) ?? []
            golden = try c.decodeIfPresent(String.self, forKey: .golden)
        }
    }

    public var walks: [Walk]

    enum CodingKeys: String, CodingKey { case walks }

    public init(walks: [Walk]) {
        self.walks = walks
    }

    public init(from decoder: any Decoder) throws {
        if let array = try? decoder.singleValueContainer().decode([Walk].self) {
            walks = array
        } else {
            walks = try decoder.container(keyedBy: CodingKeys.self).decode([Walk].self, forKey: .walks)
        }
    }

    /// Why a plan cannot be used: the file and the reason (`missing` when it cannot be read at all).
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var missing: Bool
        public var description: String { "\(path): \(reason)" }
    }

    /// Reads and checks a plan; paths in it become relative to the plan's folder.
    public static func load(_ path: String) throws(LoadError) -> BatchPlan {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(path: path, reason: "cannot read the plan", missing: true)
        }
        var plan: BatchPlan
        do {
            plan = try JSONDecoder().decode(BatchPlan.self, from: data)
        } catch let error as DecodingError {
            throw LoadError(path: path, reason: "not a plan: \(Self.describe(error))", missing: false)
        } catch {
            throw LoadError(path: path, reason: "not a plan: \(ErrorWords.reason(error))", missing: false)
        }
        guard !plan.walks.isEmpty else {
            throw LoadError(path: path, reason: "the plan lists no walks", missing: false)
        }
        let folder = (path as NSString).deletingLastPathComponent
        func resolve(_ p: String) -> String { p.hasPrefix("/") || folder.isEmpty ? p : (folder as NSString).appendingPathComponent(p) }
        for k in plan.walks.indices {
            plan.walks[k].trace = resolve(plan.walks[k].trace)
            plan.walks[k].golden = plan.walks[k].golden.map(resolve)
        }
        return plan
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let c): return c.underlyingError.map { "not JSON (\(ErrorWords.reason($0)))" } ?? c.debugDescription
        case .keyNotFound(let key, let c): return "\(c.codingPath.map(\.stringValue).joined(separator: ".")): missing \"\(key.stringValue)\""
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return "\(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
