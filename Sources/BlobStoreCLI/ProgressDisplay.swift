import BlobStore
import Foundation
import Glibc
import Synchronization

/// Shows a maintenance command's progress on standard error as one line, rewritten in place:
///
/// ```
/// verify blobs: 1234/5000 files, 1.2 GiB of 4.0 GiB, 310 MiB/s, ETA 12s
/// ```
///
/// Only on a terminal (``onTerminal(_:label:isTerminal:)`` returns `nil` otherwise, so scripts
/// and logs see nothing), at most once per ``minimumInterval`` and whenever the step changes.
/// ``finish()`` draws the last state and ends the line.
///
/// The library may report from several threads at once: the state is guarded by one lock, and
/// the line is written after the lock is released.
final class ProgressDisplay: Sendable {
    /// What was reported and drawn so far.
    private struct State {
        var latest: MaintenanceProgress?
        /// When the current step's first report arrived: rate and ETA are per step.
        var stepStart: Duration = .zero
        var lastDraw: Duration?
        var finished = false
    }

    /// Written after `\r` to clear the rest of a longer line drawn before (ANSI "erase in line").
    static let clearToEndOfLine = "\u{1B}[K"

    /// The command, the line's first word (`verify`).
    let label: String
    let minimumInterval: Duration
    private let now: @Sendable () -> Duration
    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

    /// - Parameters:
    ///   - label: The command, the line's first word.
    ///   - minimumInterval: The least time between two lines within a step. Default 100 ms.
    ///   - now: Time since any fixed origin; tests pass a fake clock.
    ///   - write: Writes text to the terminal.
    init(
        label: String, minimumInterval: Duration = .milliseconds(100),
        now: @escaping @Sendable () -> Duration = ProgressDisplay.monotonicClock(),
        write: @escaping @Sendable (String) -> Void
    ) {
        self.label = label
        self.minimumInterval = minimumInterval
        self.now = now
        self.write = write
    }

    /// A display writing to `handle` when it is a terminal, else `nil`.
    ///
    /// - Parameters:
    ///   - handle: Standard error.
    ///   - label: The command, the line's first word.
    ///   - isTerminal: Whether a file descriptor is a terminal. Default `isatty`.
    static func onTerminal(
        _ handle: FileHandle, label: String, isTerminal: (Int32) -> Bool = { isatty($0) == 1 }
    ) -> ProgressDisplay? {
        guard isTerminal(handle.fileDescriptor) else { return nil }
        return ProgressDisplay(label: label) { text in try? handle.write(contentsOf: Data(text.utf8)) }
    }

    /// The time since this call, on a clock that does not jump.
    static func monotonicClock() -> @Sendable () -> Duration {
        let clock = ContinuousClock()
        let origin = clock.now
        return { clock.now - origin }
    }

    // MARK: - Reporting

    /// ``update(_:)``, as the library's `progress` callback.
    var callback: @Sendable (MaintenanceProgress) -> Void {
        { [self] progress in update(progress) }
    }

    /// Records `progress` and redraws the line if the step changed or ``minimumInterval`` has
    /// passed since the last line. A report that goes backwards within a step (threads racing
    /// to report) is ignored.
    func update(_ progress: MaintenanceProgress) {
        let line: String? = state.withLock { state in
            guard !state.finished else { return nil }
            let time = now()
            if let latest = state.latest, latest.step == progress.step {
                if (progress.done, progress.bytes) < (latest.done, latest.bytes) { return nil }
            } else {
                state.stepStart = time
                state.lastDraw = nil
            }
            state.latest = progress
            if let lastDraw = state.lastDraw, time - lastDraw < minimumInterval { return nil }
            state.lastDraw = time
            return Self.line(label: label, progress: progress, elapsed: time - state.stepStart)
        }
        if let line { write("\r" + line + Self.clearToEndOfLine) }
    }

    /// Draws the last reported state and ends the line; nothing if nothing was reported. Later
    /// reports are ignored.
    func finish() {
        let line: String? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            guard let latest = state.latest else { return nil }
            return Self.line(label: label, progress: latest, elapsed: now() - state.stepStart)
        }
        if let line { write("\r" + line + Self.clearToEndOfLine + "\n") }
    }

    // MARK: - Formatting

    /// The progress line, without `\r` or line end:
    /// `<label> <step>: <done>/<total> <things>, <bytes> of <total bytes>, <rate>/s, ETA <time>`.
    ///
    /// Totals are left out when unknown (0), the byte part when no bytes are counted, the rate
    /// when no time has passed, and the ETA when the step is complete or nothing is done yet. The
    /// ETA assumes the rate so far: by bytes when their total is known, else by items.
    ///
    /// - Parameters:
    ///   - label: The command.
    ///   - progress: The latest report.
    ///   - elapsed: Time since the step began.
    static func line(label: String, progress: MaintenanceProgress, elapsed: Duration) -> String {
        let things = noun(forStep: progress.step)
        var parts = [progress.total > 0 ? "\(progress.done)/\(progress.total) \(things)" : "\(progress.done) \(things)"]
        if progress.totalBytes > 0 {
            parts.append("\(QuantityFormat.bytes(progress.bytes)) of \(QuantityFormat.bytes(progress.totalBytes))")
        } else if progress.bytes > 0 {
            parts.append(QuantityFormat.bytes(progress.bytes))
        }
        let seconds = elapsed.seconds
        if seconds > 0 {
            if progress.bytes > 0 {
                let rate = Double(progress.bytes) / seconds
                parts.append(QuantityFormat.bytes(rate < 1.8e19 ? UInt64(rate) : UInt64.max) + "/s")
            }
            var remaining: Double?
            if progress.totalBytes > 0, progress.bytes > 0, progress.bytes < progress.totalBytes {
                remaining = seconds * Double(progress.totalBytes - progress.bytes) / Double(progress.bytes)
            } else if progress.totalBytes == 0, progress.total > 0, progress.done > 0, progress.done < progress.total {
                remaining = seconds * Double(progress.total - progress.done) / Double(progress.done)
            }
            if let remaining { parts.append("ETA " + QuantityFormat.duration(seconds: remaining)) }
        }
        return "\(label) \(progress.step): " + parts.joined(separator: ", ")
    }

    /// What a step counts: blob files for `blobs` and `sweep`, records for `index`.
    private static func noun(forStep step: MaintenanceProgress.Step) -> String {
        switch step {
        case .blobs, .sweep: "files"
        }
    }
}
