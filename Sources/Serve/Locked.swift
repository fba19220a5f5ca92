import Foundation
import Synchronization

/// A value behind a lock that ThreadSanitizer understands: an `NSLock` (a
/// pthread mutex) held around Synchronization's `Mutex`, whose futex-based
/// sections TSan on Linux does not see as ordering anything.
final class Locked<Value: Sendable>: Sendable {
    private let lock = NSLock()
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return mutex.withLock { (value: inout sending Value) -> Result in body(&value) }
    }
}
