import ChildProcess
import Foundation
import Testing
import TestSupport

@Suite("Child processes in tests: awaited, drained, bounded")
struct ChildProcessTests {
    @Test("a megabyte on standard error before a megabyte on standard output: both read whole")
    func bothStreamsWhole() async throws {
        let run = try await ChildProcess.run("/bin/sh", ["-c", "yes e | head -c 1048576 >&2; yes o | head -c 1048576"])
        #expect(run.status == 0, "\(run.reason)")
        #expect(run.stdout.utf8.count == 1 << 20 && run.stdout.allSatisfy { $0 == "o" || $0 == "\n" })
        #expect(run.stderr.utf8.count == 1 << 20 && run.stderr.allSatisfy { $0 == "e" || $0 == "\n" })
    }

    @Test("a parent that ignores SIGPIPE (as SwiftNIO makes it) still starts children with the default: yes | head ends quietly")
    func defaultSignals() async throws {
        signal(SIGPIPE, SIG_IGN)
        let run = try await ChildProcess.run("/bin/sh", ["-c", "yes | head -c 100000 > /dev/null; grep -E '^Sig(Ign|Blk)' /proc/self/status"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        // SigBlk then SigIgn: in the child SIGPIPE (bit 13 - 1) is neither blocked nor ignored, and nothing is blocked.
        let masks = run.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) } }
        #expect(masks.count == 2 && masks.allSatisfy { $0 & (1 << (SIGPIPE - 1)) == 0 } && masks.first == 0, "\(run.stdout)")
    }

    @Test("a child that hangs is killed at its time limit with what it started, and says so")
    func hangs() async throws {
        // Durations no other process on the machine uses, to find them afterwards.
        let n = Int.random(in: 100_000...999_999)
        let run = try await ChildProcess.run("/bin/sh", ["-c", "sleep 7\(n) & exec sleep 8\(n)"], timeout: .seconds(1))
        #expect(run.timedOut)
        #expect(run.reason.contains("timed out"))
        #expect(liveProcesses(containing: "sleep 7\(n)").isEmpty)
        #expect(liveProcesses(containing: "sleep 8\(n)").isEmpty)
    }

    @Test("a child killed by a signal is reported with the signal")
    func killedBySignal() async throws {
        let run = try await ChildProcess.run("/bin/sh", ["-c", "echo before; kill -9 $$"])
        #expect(run.signal == SIGKILL)
        #expect(run.status == 128 + SIGKILL)
        #expect(run.reason == "killed by signal 9")
        #expect(run.stdout == "before\n")
    }

    @Test("a child that closes standard output early and keeps writing to standard error is read to its end")
    func closesStdoutEarly() async throws {
        let script = "echo first; exec 1>&-; i=0; while [ $i -lt 5000 ]; do echo \"line $i\" >&2; i=$((i+1)); done; exit 3"
        let run = try await ChildProcess.run("/bin/sh", ["-c", script])
        #expect(run.status == 3)
        #expect(run.stdout == "first\n")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 5000 && lines.last == "line 4999")
    }
}
