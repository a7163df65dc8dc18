/// How far a long maintenance step (verify's rehash, gc's sweep) has got, for a progress display.
public struct MaintenanceProgress: Sendable, Equatable {
    /// A long step that reports its progress.
    public enum Step: String, Sendable, Equatable, CustomStringConvertible {
        /// `verify`'s rehash of the loose blob files.
        case blobs
        /// `collectGarbage`'s sweep of `blobs/` for files no entry refers to.
        case sweep

        /// The step's name in reports and progress lines (`"blobs"`, `"sweep"`).
        public var description: String { rawValue }
    }

    /// The step.
    public var step: Step
    /// Items done and the total (`total` is 0 when unknown).
    public var done: Int
    public var total: Int
    /// Bytes done and the total (`totalBytes` is 0 when unknown).
    public var bytes: UInt64
    public var totalBytes: UInt64

    public init(step: Step, done: Int, total: Int, bytes: UInt64, totalBytes: UInt64) {
        self.step = step
        self.done = done
        self.total = total
        self.bytes = bytes
        self.totalBytes = totalBytes
    }
}
