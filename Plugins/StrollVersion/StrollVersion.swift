import Foundation
import PackagePlugin

/// Writes `BuildVersion.swift` for the `stroll` executable: the version (the
/// git tag on the commit built, else the `VERSION` file at the package's root)
/// and the commit, read from the package's `.git` as plain files, so that
/// neither git nor a network is needed. Outside a git checkout the commit is
/// "unknown". The file is rewritten only when its text changes.
@main
struct StrollVersion: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let fallback = (try? String(contentsOf: root.appendingPathComponent("VERSION"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "0.0.0"
        let head = GitHead(root: root)
        let version = head?.tag.map { $0.hasPrefix("v") ? String($0.dropFirst()) : $0 } ?? fallback
        let commit = head?.commit ?? "unknown"
        let directory = context.pluginWorkDirectoryURL.appendingPathComponent("Generated")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("BuildVersion.swift")
        let text = """
            /// The version and commit this binary was built from (written by the StrollVersion plugin).
            enum BuildVersion {
                static let version = \(literal(version))
                static let commit = \(literal(commit))
            }

            """
        if (try? String(contentsOf: file, encoding: .utf8)) != text {
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        return [.prebuildCommand(displayName: "Stroll's version \(version) (\(commit))",
                                 executable: URL(fileURLWithPath: "/usr/bin/true"), arguments: [], outputFilesDirectory: directory)]
    }

    private func literal(_ text: String) -> String {
        "\"" + text.filter { $0.isLetter || $0.isNumber || ".-+_~".contains($0) } + "\""
    }
}

/// The commit checked out in a git directory and a tag naming it, if any.
struct GitHead {
    var commit: String
    var tag: String?

    init?(root: URL) {
        var git = root.appendingPathComponent(".git")
        // A worktree or submodule has a `.git` file naming its git directory.
        if let pointer = try? String(contentsOf: git, encoding: .utf8), pointer.hasPrefix("gitdir:") {
            let path = pointer.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
            git = path.hasPrefix("/") ? URL(fileURLWithPath: path) : root.appendingPathComponent(path)
        }
        guard let headText = try? String(contentsOf: git.appendingPathComponent("HEAD"), encoding: .utf8) else { return nil }
        let head = headText.trimmingCharacters(in: .whitespacesAndNewlines)
        // A linked worktree keeps shared refs in the common directory.
        var common = git
        if let text = try? String(contentsOf: git.appendingPathComponent("commondir"), encoding: .utf8) {
            let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
            common = path.hasPrefix("/") ? URL(fileURLWithPath: path) : git.appendingPathComponent(path)
        }
        let packed = Self.packedRefs(common)
        var full = head
        if head.hasPrefix("ref: ") {
            let ref = String(head.dropFirst(5))
            let loose = (try? String(contentsOf: git.appendingPathComponent(ref), encoding: .utf8))
                ?? (try? String(contentsOf: common.appendingPathComponent(ref), encoding: .utf8))
            guard let value = loose?.trimmingCharacters(in: .whitespacesAndNewlines) ?? packed.first(where: { $0.ref == ref })?.commit else { return nil }
            full = value
        }
        guard full.count >= 12, full.allSatisfy(\.isHexDigit) else { return nil }
        commit = String(full.prefix(12))
        var tags = packed.filter { $0.ref.hasPrefix("refs/tags/") && $0.commit == full }.map { String($0.ref.dropFirst("refs/tags/".count)) }
        let tagDirectory = common.appendingPathComponent("refs/tags")
        if let names = try? FileManager.default.contentsOfDirectory(atPath: tagDirectory.path) {
            for name in names {
                guard let value = try? String(contentsOf: tagDirectory.appendingPathComponent(name), encoding: .utf8) else { continue }
                if value.trimmingCharacters(in: .whitespacesAndNewlines) == full { tags.append(name) }
            }
        }
        tag = tags.sorted().last
    }

    /// `packed-refs`' lines as (ref, commit), an annotated tag by the commit it peels to.
    private static func packedRefs(_ git: URL) -> [(ref: String, commit: String)] {
        guard let text = try? String(contentsOf: git.appendingPathComponent("packed-refs"), encoding: .utf8) else { return [] }
        var refs: [(ref: String, commit: String)] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("^"), let last = refs.popLast() {
                refs.append((last.ref, String(line.dropFirst())))
                continue
            }
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { refs.append((String(parts[1]), String(parts[0]))) }
        }
        return refs
    }
}
