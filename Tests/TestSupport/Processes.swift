import Foundation

/// A file of /proc read whole with POSIX calls. (FileManager.contents(atPath:)
/// reads a file whose size is reported as 0, as /proc's are, into buffers that
/// swift-corelibs-foundation 6.3 never frees: LeakSanitizer reports them.)
func procFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { break }
        bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Processes running now whose command line contains `text`, and not as zombies.
public func liveProcesses(containing text: String) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
        guard let cmdline = procFile("/proc/\(pid)/cmdline"), cmdline.contains(text),
              let stat = procFile("/proc/\(pid)/stat") else { return false }
        // The state follows the parenthesised command name; a zombie has ended.
        let fields = stat.split(separator: ")").last?.split(separator: " ")
        return fields?.first != "Z"
    }
}

/// The process ids whose parent is `parent`.
public func children(of parent: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
        guard let stat = procFile("/proc/\(pid)/stat"),
              let fields = stat.split(separator: ")").last?.split(separator: " "),
              fields.count > 1 else { return false }
        // After the name: state, then the parent's id.
        return fields[0] != "Z" && Int32(fields[1]) == parent
    }
}
