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
}
