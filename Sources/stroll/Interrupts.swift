import Foundation

/// SIGINT and SIGTERM as an async stream: the default action (ending the
/// process) is replaced by an element, so a command can stop its work and
/// clean up. Cancel the sources when done.
enum Interrupts {
    static func stream() -> (AsyncStream<Void>, AsyncStream<Void>.Continuation, [any DispatchSourceSignal]) {
        let (interrupts, interrupt) = AsyncStream.makeStream(of: Void.self)
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { interrupt.yield() }
            source.resume()
            return source
        }
        return (interrupts, interrupt, sources)
    }
}
