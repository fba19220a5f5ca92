import Foundation
import LocationSimulation
import Replay

/// Drives a ``LiveServer`` with a replay paced on the wall clock.
public enum LiveRun {
    /// Waits for `waitForClients` watching clients, then replays at `speed`
    /// (paused, resumed and re-speeded through `control`), publishing every
    /// event; with `loop`, starts again from the beginning when the walk ends.
    /// Returns the number of walks completed; cancelling the task ends it.
    public static func run(server: LiveServer, speed: Double, control: ReplayControl, loop: Bool, waitForClients: Int = 0,
                           makeReplay: () throws -> Replay) async throws -> Int {
        await server.waitForClients(waitForClients)
        let clock = RealTimeClock(speed: speed, control: control)
        var completed = 0
        repeat {
            var replay = try makeReplay()
            var pacer = clock.makePacer(start: replay.startTime)
            while let event = try await replay.next(pacedBy: &pacer) {
                server.publish(event)
            }
            completed += 1
            try Task.checkCancellation()
        } while loop
        return completed
    }

    /// How a served run ended.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// The walk ended, after this many walks.
        case ended(walks: Int)
        /// Stopped by an element of the interrupts (a signal).
        case interrupted
        /// Stopped by cancellation.
        case stopped
        /// The replay failed.
        case failed(String)

        public var description: String {
            switch self {
            case .ended(let walks): "the walk ended (\(walks) played)"
            case .interrupted: "stopped by a signal"
            case .stopped: "stopped"
            case .failed(let message): "error: \(message)"
            }
        }
    }

    /// ``run(server:speed:control:loop:waitForClients:makeReplay:)`` until the
    /// walk ends or `interrupts` yields, whichever comes first; the other is
    /// then cancelled.
    public static func run(server: LiveServer, speed: Double, control: ReplayControl, loop: Bool, waitForClients: Int = 0,
                           until interrupts: AsyncStream<Void>, makeReplay: @escaping @Sendable () throws -> Replay) async -> Outcome {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do {
                    return .ended(walks: try await run(server: server, speed: speed, control: control, loop: loop, waitForClients: waitForClients,
                                                       makeReplay: makeReplay))
                } catch is CancellationError {
                    return .stopped
                } catch {
                    return .failed("\(error)")
                }
            }
            group.addTask {
                for await _ in interrupts { return .interrupted }
                return .stopped
            }
            let first = await group.next() ?? .stopped
            group.cancelAll()
            return first
        }
    }
}
