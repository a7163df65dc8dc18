import CSharedCounter

/// A counter in the first page of the store's LOCK file, mapped shared by every process that has
/// the store open, which a writer bumps each time it releases the exclusive lock.
///
/// A reader whose last catch-up saw the same value knows that no process has appended to the
/// journal or replaced CURRENT since, and answers from its index without a system call. The
/// counter is a hint about *whether* to look, never a source of data: a catch-up still reads
/// the journal and CURRENT. A writer killed between its append and its bump acknowledged
/// nothing; its record is seen at the next bump. docs/design.md, "Change counter".
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

    deinit { Syscalls.unmapSharedPage(page) }

    /// The current value.
    var value: UInt64 {
        blobstore_counter_load(page.assumingMemoryBound(to: UInt64.self))
    }

    /// Adds one (a no-op on a read-only mapping: such a process never writes the store).
    func bump() {
        guard writable else { return }
        _ = blobstore_counter_bump(page.assumingMemoryBound(to: UInt64.self))
    }
}
