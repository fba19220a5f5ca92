import Foundation
import Traces
import Places
import Proximity
import Replay

/// What a batch checks and makes before any replay starts: its walks and
/// folders, the Ray cluster it runs on, and the shards of its places.
extension Batch {
    /// Why a batch cannot start; `kind` tells the command-line contract's exit code.
    public struct SetupError: Error, Sendable, CustomStringConvertible {
        /// What failed: something named is missing (exit 66), the Ray cluster
        /// cannot be reached (69), or a file cannot be written (70).
        public enum Kind: Sendable {
            /// A trace, a folder to verify against, or a folder that cannot be made.
            case missing
            /// The Ray cluster cannot be reached or its driver cannot start.
            case unavailable
            /// The shards cannot be written.
            case cannotWrite
        }
        /// What failed.
        public var kind: Kind
        /// What failed and why, naming the file, folder or address.
        public var message: String
        public var description: String { message }
    }

    /// Checks that every walk's trace exists (naming `plan` if it came from
    /// one) and that `verifyDirectory` is a folder, and makes `directory` and
    /// `recordDirectory`. Nothing is made when a check fails.
    public static func prepare(walks: [BatchPlan.Walk], directory: String, recordDirectory: String?, verifyDirectory: String?,
                               plan: String? = nil) throws(SetupError) {
        let files = FileManager.default
        for walk in walks where !files.fileExists(atPath: walk.trace) {
            throw SetupError(kind: .missing, message: "\(walk.trace): no such trace\(plan.map { " (in \($0))" } ?? "")")
        }
        if let dir = verifyDirectory {
            var isDirectory: ObjCBool = false
            guard files.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw SetupError(kind: .missing, message: "--verify-dir \(dir): no such directory")
            }
        }
        for dir in [directory] + [recordDirectory].compactMap({ $0 }) {
            do {
                try files.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } catch {
                throw SetupError(kind: .missing, message: "cannot create \(dir): \(ErrorWords.reason(error))")
            }
        }
    }

    /// Starts the Ray driver for a batch writing to `directory` (its log is
    /// `directory/.ray-driver.log`). When the cluster cannot be reached, nothing
    /// is left behind: no driver log and, if `directoryExisted` is false and it
    /// is still empty, no `directory`.
    public static func connect(ray address: String, python: String, stroll: String, retries: Int, connectTimeout: Double,
                               directory: String, directoryExisted: Bool) async throws(SetupError) -> (RayExecutor, RayExecutor.Cluster) {
        let executor = RayExecutor(logPath: (directory as NSString).appendingPathComponent(".ray-driver.log"))
        switch await executor.start(address: address, python: python, stroll: stroll, retries: retries, connectTimeout: connectTimeout) {
        case .success(let cluster):
            return (executor, cluster)
        case .failure(let error):
            await executor.finish()
            try? FileManager.default.removeItem(atPath: executor.logPath)
            if !directoryExisted, (try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty == true {
                try? FileManager.default.removeItem(atPath: directory)
            }
            throw SetupError(kind: .unavailable, message: "--ray \(address): \(error.message)")
        }
    }

    /// The folder a sharded batch keeps its shards in.
    public var shardDirectory: String { output(".shards") }

    /// Splits the active groups' places of `set` into `count` shards in
    /// ``shardDirectory``: each walk is then replayed once per shard and the
    /// events merged into those of one replay over all places.
    public mutating func shard(_ set: PlaceSet, activeGroups: [String], count: Int, sortMode: SortMode) throws(SetupError) {
        do {
            shards = try ShardPlan.write(try set.places(inGroups: activeGroups), activeGroups: activeGroups, count: count,
                                         placesRejected: set.rejected.count, sortMode: sortMode, directory: shardDirectory)
        } catch {
            throw SetupError(kind: .cannotWrite, message: "cannot write the shards in \(shardDirectory): \(ErrorWords.reason(error))")
        }
    }
}
