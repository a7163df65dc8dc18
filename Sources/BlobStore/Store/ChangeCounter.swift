import CSharedCounter
import Synchronization

/// A counter in the first page of the store's LOCK file, mapped shared by every process that has
/// the store open, which a writer bumps each time it takes and each time it releases the
/// exclusive lock.
///
/// A reader whose last catch-up saw the same value knows that no process has appended to the
/// journal or replaced CURRENT since, and answers from its index without a system call. The
/// counter is a hint about *whether* to look, never a source of data: a catch-up still reads
/// the journal and CURRENT. A writer killed between its append and its bump acknowledged
/// nothing; its record is seen at the next bump. docs/design.md, "Change counter".
///
/// Bumping on taking the lock as well tells a writer that nobody else held it since this
/// process let it go, not even a writer that died holding it (it bumped when it took it): then
/// a writer whose last hold ended caught up skips the catch-up's `fstat` and `lstat`, and the
/// pack's `fstat` (``isQuiet``).
final class ChangeCounter: @unchecked Sendable {
    // The pointer is set once and only read through C11 atomics; the page outlives every use
    // because the store holds this object until it is deinitialised.
    private let page: UnsafeMutableRawPointer
    private let writable: Bool

    /// Maps LOCK's counter; `nil` when it cannot be mapped (a read-only store whose LOCK was
    /// never grown to a page by a writer), in which case every read catches up with system calls.
    init?(lock: FileDescriptor, writable: Bool) {
        guard let page = Syscalls.mapSharedPage(lock, writable: writable) else { return nil }
        self.page = page
        self.writable = writable
    }

    /// The value this process left when it last let the exclusive lock go after a hold that
    /// caught up (``markCaughtUp()``); `UInt64.max` when its last hold did not.
    private let lastCaughtUpRelease = Atomic<UInt64>(.max)
    /// Set while this process holds the exclusive lock and nobody else took it since its last
    /// caught-up hold.
    private let quiet = Atomic<Bool>(false)
    /// Set during a hold once the holder caught up.
    private let caughtUp = Atomic<Bool>(false)

    deinit { Syscalls.unmapSharedPage(page) }

    /// The current value.
    var value: UInt64 {
        blobstore_counter_load(page.assumingMemoryBound(to: UInt64.self))
    }

    /// Adds one and returns the value before (`nil` on a read-only mapping: such a process
    /// never writes the store).
    @discardableResult
    func bump() -> UInt64? {
        guard writable else { return nil }
        return blobstore_counter_bump(page.assumingMemoryBound(to: UInt64.self))
    }

    /// Call right after taking the exclusive lock.
    func acquired() {
        let before = bump()
        quiet.store(before != nil && before == lastCaughtUpRelease.load(ordering: .relaxed), ordering: .relaxed)
        caughtUp.store(false, ordering: .relaxed)
    }

    /// Call right before letting the exclusive lock go.
    func releasing() {
        let before = bump()
        let caught = caughtUp.load(ordering: .relaxed)
        lastCaughtUpRelease.store(caught ? (before.map { $0 &+ 1 } ?? .max) : .max, ordering: .relaxed)
        quiet.store(false, ordering: .relaxed)
        caughtUp.store(false, ordering: .relaxed)
    }

    /// Whether, during the current hold of the exclusive lock, nothing can have changed since
    /// this process's last hold ended caught up: no process (alive or dead) took the lock since.
    var isQuiet: Bool { quiet.load(ordering: .relaxed) }

    /// Records that the holder of the exclusive lock is caught up with every change (and keeps
    /// its index in step with its own appends until it lets the lock go).
    func markCaughtUp() { caughtUp.store(true, ordering: .relaxed) }

    /// Whether `value` is what this process left at its last caught-up release: no other
    /// process has changed anything since, so a reader needs no catch-up.
    func isOwnRelease(_ value: UInt64) -> Bool { value == lastCaughtUpRelease.load(ordering: .relaxed) }
}
