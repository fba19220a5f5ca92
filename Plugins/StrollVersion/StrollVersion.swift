import Foundation
import PackagePlugin

/// Writes `BuildVersion.swift` for the `stroll` executable: the version (the
/// git tag on the commit built, without a leading `v`, else the `VERSION`
/// file at the package's root) and the commit (12 hex digits; "unknown"
/// outside a git checkout or without git). The command runs again whenever
/// the `VERSION` file or git's log of HEAD changes (every commit, checkout,
/// reset), so a new commit is seen without a clean build.
@main
struct StrollVersion: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let directory = context.pluginWorkDirectoryURL.appendingPathComponent("Generated")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var git = root.appendingPathComponent(".git")
        // A linked worktree's `.git` is a file naming its git directory.
        if let pointer = try? String(contentsOf: git, encoding: .utf8), pointer.hasPrefix("gitdir:") {
            let path = pointer.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
            git = path.hasPrefix("/") ? URL(fileURLWithPath: path) : root.appendingPathComponent(path)
        }
        let inputs = [root.appendingPathComponent("VERSION"), git.appendingPathComponent("HEAD"), git.appendingPathComponent("logs/HEAD")]
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        let script = #"""
            root=$1 out=$2/BuildVersion.swift
            version=$(tr -cd '0-9A-Za-z.+~_-' < "$root/VERSION" 2>/dev/null)
            [ -n "$version" ] || version=0.0.0
            commit=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null | tr -cd '0-9a-f')
            [ -n "$commit" ] || commit=unknown
            tag=$(git -C "$root" describe --tags --exact-match HEAD 2>/dev/null | tr -cd '0-9A-Za-z.+~_-')
            [ -n "$tag" ] && version=${tag#v}
            text="/// The version and commit this binary was built from (written by the StrollVersion plugin).
            enum BuildVersion {
                static let version = \"$version\"
                static let commit = \"$commit\"
            }"
            printf '%s\n' "$text" > "$out"
            """#
        return [.buildCommand(displayName: "Stroll's version and commit",
                              executable: URL(fileURLWithPath: "/bin/sh"),
                              arguments: ["-c", script, "stroll-version", root.path, directory.path],
                              inputFiles: inputs,
                              outputFiles: [directory.appendingPathComponent("BuildVersion.swift")])]
    }
}
