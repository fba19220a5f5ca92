import Foundation
import PackagePlugin

/// Writes `BuildVersion.swift` for the `stroll` executable before every
/// build: the version (the git tag on the commit built, without a leading
/// `v`, else the `VERSION` file at the package's root) and the commit (12
/// hex digits; "unknown" outside a git checkout or without git). A prebuild
/// command runs on every build, so a new commit is seen without a clean
/// build; the file is replaced only when its text changes, so nothing is
/// compiled again otherwise.
@main
struct StrollVersion: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let directory = context.pluginWorkDirectoryURL.appendingPathComponent("Generated")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
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
            [ "$(cat "$out" 2>/dev/null)" = "$text" ] || printf '%s\n' "$text" > "$out"
            """#
        return [.prebuildCommand(displayName: "Stroll's version and commit",
                                 executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: ["-c", script, "stroll-version", context.package.directoryURL.path, directory.path],
                                 outputFilesDirectory: directory)]
    }
}
