/// How far a long maintenance step (verify's rehash, gc's sweep) has got, for a progress display.
public struct MaintenanceProgress: Sendable, Equatable {
    /// The step, as named in its report (`"blobs"`, `"sweep"`, …).
    public var step: String
    /// Items done and the total (`total` is 0 when unknown).
    public var done: Int
    public var total: Int
    /// Bytes done and the total (`totalBytes` is 0 when unknown).
    public var bytes: UInt64
    public var totalBytes: UInt64

    public init(step: String, done: Int, total: Int, bytes: UInt64, totalBytes: UInt64) {
        self.step = step
        self.done = done
        self.total = total
        self.bytes = bytes
        self.totalBytes = totalBytes
    }
}
