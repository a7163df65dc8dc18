import Dispatch
import Synchronization

/// The group commit that runs on its timer syncs with ``BlobStore/writers`` let go, so that the
/// writes of this process do not wait for the disk (nor for the thread to be scheduled again
/// after it: on a busy machine that was milliseconds during which every writer, and every event
/// loop of the caching proxy, stood still). It takes its work out of the state while it holds
/// `writers`, marks itself here, and lets `writers` go before it syncs.
///
/// Whoever then takes unsynced work out of the state, or needs everything written so far
/// durable (a flush, a group commit, an eviction round before it deletes, a compaction before
/// its manifest), holds `writers` and calls ``settle()`` first: it waits for that sync to end
/// and learns whether it failed. At most one sync is in flight: the timer settles too before it
/// takes its work. Order: `writers`, then the state mutex, then this; the sync in flight takes
/// neither of the first two until it has ended here (docs/design.md, "Threads").
final class CommitInFlight: Sendable {
    /// Taken by the sync in flight for its whole run; taken and given back by ``settle()``.
    private let gate = DispatchSemaphore(value: 1)
    /// How the last sync in flight failed, until a caller of ``settle()`` takes it.
    private let failure = Mutex<BlobStoreError?>(nil)

    /// Marks a sync as in flight. Call holding `writers`, after ``settle()``.
    func begin() {
        gate.wait()
    }

    /// Marks the sync in flight as ended, having failed with `error` if it did.
    func end(failing error: BlobStoreError?) {
        if let error { failure.withLock { $0 = $0 ?? error } }
        gate.signal()
    }

    /// Waits for the sync in flight, if any, to end.
    ///
    /// - Throws: The error it failed with, once: the caller poisons the handle with it.
    func settle() throws(BlobStoreError) {
        gate.wait()
        gate.signal()
        if let error = failure.withLock({ $0.take() }) { throw error }
    }
}
