import BlobStore
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BlobStoreCLI

/// A clock the test moves by hand.
private final class FakeClock: Sendable {
    private let time = Mutex(Duration.zero)
    var now: Duration { time.withLock { $0 } }
    func advance(_ duration: Duration) { time.withLock { $0 += duration } }
}

/// What a display wrote.
private final class Terminal: Sendable {
    private let text = Mutex<[String]>([])
    var writes: [String] { text.withLock { $0 } }
    func write(_ string: String) { text.withLock { $0.append(string) } }
}

@Suite struct ProgressDisplayTests {
    private let mib: UInt64 = 1 << 20

    // MARK: - The line

    @Test func lineShowsCountsBytesRateAndETA() {
        // 1240 MiB in 4 s is 310 MiB/s; 3720 MiB remain: 12 s more.
        let progress = MaintenanceProgress(
            step: .blobs, done: 1234, total: 5000, bytes: 1240 * mib, totalBytes: 4960 * mib)
        #expect(
            ProgressDisplay.line(label: "verify", progress: progress, elapsed: .seconds(4))
                == "verify blobs: 1234/5000 files, 1.2 GiB of 4.8 GiB, 310 MiB/s, ETA 12s")
    }

    @Test func unknownTotalsAreLeftOut() {
        let progress = MaintenanceProgress(step: .sweep, done: 17, total: 0, bytes: 5 * mib, totalBytes: 0)
        #expect(
            ProgressDisplay.line(label: "gc", progress: progress, elapsed: .seconds(2))
                == "gc sweep: 17 files, 5.0 MiB, 2.5 MiB/s")
    }

    @Test func withoutBytesTheETAComesFromTheItems() {
        let progress = MaintenanceProgress(step: .sweep, done: 50, total: 200, bytes: 0, totalBytes: 0)
        #expect(
            ProgressDisplay.line(label: "gc", progress: progress, elapsed: .seconds(1))
                == "gc sweep: 50/200 files, ETA 3.0s")
        let unknown = MaintenanceProgress(step: .sweep, done: 10, total: 0, bytes: 0, totalBytes: 0)
        #expect(ProgressDisplay.line(label: "gc", progress: unknown, elapsed: .seconds(1)) == "gc sweep: 10 files")
    }

    @Test func noRateOrETABeforeTimePassesOrAfterTheStepIsDone() {
        let started = MaintenanceProgress(step: .blobs, done: 1, total: 10, bytes: 1024, totalBytes: 10_240)
        #expect(
            ProgressDisplay.line(label: "verify", progress: started, elapsed: .zero)
                == "verify blobs: 1/10 files, 1.0 KiB of 10 KiB")
        let done = MaintenanceProgress(step: .blobs, done: 10, total: 10, bytes: 10_240, totalBytes: 10_240)
        #expect(
            ProgressDisplay.line(label: "verify", progress: done, elapsed: .seconds(1))
                == "verify blobs: 10/10 files, 10 KiB of 10 KiB, 10 KiB/s")
        let nothing = MaintenanceProgress(step: .blobs, done: 0, total: 10, bytes: 0, totalBytes: 10_240)
        #expect(
            ProgressDisplay.line(label: "verify", progress: nothing, elapsed: .seconds(1))
                == "verify blobs: 0/10 files, 0 B of 10 KiB")
    }

    // MARK: - Drawing

    @Test func drawsAtMostTenTimesASecondAndOnEveryNewStep() {
        let clock = FakeClock()
        let terminal = Terminal()
        let display = ProgressDisplay(label: "verify", now: { clock.now }, write: terminal.write)
        func report(_ step: MaintenanceProgress.Step, _ done: Int) {
            display.update(MaintenanceProgress(step: step, done: done, total: 100, bytes: 0, totalBytes: 0))
        }
        report(.sweep, 1)  // first report: drawn
        clock.advance(.milliseconds(50))
        report(.sweep, 2)  // 50 ms later: skipped
        clock.advance(.milliseconds(50))
        report(.sweep, 3)  // 100 ms after the last line: drawn
        clock.advance(.milliseconds(10))
        report(.blobs, 1)  // a new step: drawn at once
        clock.advance(.milliseconds(10))
        report(.blobs, 2)  // skipped
        display.finish()  // the last state, and the line ends

        let lines = terminal.writes
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.hasPrefix("\r") && $0.contains(ProgressDisplay.clearToEndOfLine) })
        #expect(lines[0].hasPrefix("\rverify sweep: 1/100 files"))
        #expect(lines[1].hasPrefix("\rverify sweep: 3/100 files"))
        #expect(lines[2].hasPrefix("\rverify blobs: 1/100 files"))
        #expect(lines[3].hasPrefix("\rverify blobs: 2/100 files"))
        #expect(lines[3].hasSuffix("\n"))
        #expect(lines.dropLast().allSatisfy { !$0.contains("\n") })

        report(.blobs, 3)  // after finish: ignored
        display.finish()
        #expect(terminal.writes.count == 4)
    }

    @Test func reportsThatGoBackwardsAreIgnored() {
        let clock = FakeClock()
        let terminal = Terminal()
        let display = ProgressDisplay(label: "gc", now: { clock.now }, write: terminal.write)
        display.update(MaintenanceProgress(step: .sweep, done: 5, total: 0, bytes: 500, totalBytes: 0))
        display.update(MaintenanceProgress(step: .sweep, done: 4, total: 0, bytes: 400, totalBytes: 0))
        display.finish()
        #expect(terminal.writes.last?.hasPrefix("\rgc sweep: 5 files, 500 B") == true)
    }

    @Test func nothingReportedDrawsNothing() {
        let terminal = Terminal()
        ProgressDisplay(label: "verify", write: terminal.write).finish()
        #expect(terminal.writes.isEmpty)
    }

    /// Several threads report at once: nothing crashes, and the last line shows the highest count.
    @Test func threadsReportingAtOnce() {
        let terminal = Terminal()
        let display = ProgressDisplay(label: "verify", minimumInterval: .zero, write: terminal.write)
        let counter = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1000 {
                let done = counter.add(1, ordering: .relaxed).newValue
                display.callback(
                    MaintenanceProgress(step: .blobs, done: done, total: 8000, bytes: UInt64(done), totalBytes: 8000))
            }
        }
        display.finish()
        #expect(terminal.writes.last?.hasPrefix("\rverify blobs: 8000/8000 files, 7.8 KiB of 7.8 KiB") == true)
        #expect(terminal.writes.last?.hasSuffix("\n") == true)
    }

    // MARK: - Only on a terminal

    /// `-q` leaves the progress line out, even on a terminal.
    @Test func noDisplayWhenQuiet() {
        func runner(quiet: Bool) -> Runner {
            Runner(
                options: GlobalOptions(quiet: quiet), environment: [:], standardInput: .nullDevice,
                output: Output(.nullDevice), errors: Output(.nullDevice))
        }
        #expect(runner(quiet: false).progressDisplay(label: "gc") { _ in true } != nil)
        #expect(runner(quiet: true).progressDisplay(label: "gc") { _ in true } == nil)
    }

    @Test func noDisplayUnlessStandardErrorIsATerminal() throws {
        let pipe = Pipe()
        var asked: [Int32] = []
        let none = ProgressDisplay.onTerminal(pipe.fileHandleForWriting, label: "verify") { fd in
            asked.append(fd)
            return false
        }
        #expect(none == nil)
        #expect(asked == [pipe.fileHandleForWriting.fileDescriptor])
        // The default asks isatty: a pipe is not a terminal.
        #expect(ProgressDisplay.onTerminal(pipe.fileHandleForWriting, label: "verify") == nil)

        let display = try #require(ProgressDisplay.onTerminal(pipe.fileHandleForWriting, label: "gc") { _ in true })
        display.update(MaintenanceProgress(step: .sweep, done: 1, total: 2, bytes: 0, totalBytes: 0))
        display.finish()
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(written.hasPrefix("\rgc sweep: 1/2 files"))
        #expect(written.hasSuffix("\u{1B}[K\n"))
    }
}
