import Foundation

/// Processes running now whose command line contains `text`, and not as zombies.
public func liveProcesses(containing text: String) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
        guard let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
              String(decoding: cmdline, as: UTF8.self).contains(text),
              let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return false }
        // The state follows the parenthesised command name; a zombie has ended.
        let fields = String(decoding: stat, as: UTF8.self).split(separator: ")").last?.split(separator: " ")
        return fields?.first != "Z"
    }
}

/// The process ids whose parent is `parent`.
public func children(of parent: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
              let fields = String(decoding: stat, as: UTF8.self).split(separator: ")").last?.split(separator: " "),
              fields.count > 1 else { return false }
        // After the name: state, then the parent's id.
        return fields[0] != "Z" && Int32(fields[1]) == parent
    }
}
