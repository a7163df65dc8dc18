import Dispatch
import Glibc
import Synchronization

/// Hashing overlapped with file I/O on a second thread, for large values: SHA-256 and copying
/// to or from the page cache take about as long as each other, so doing both at once almost
/// halves the time of a large put or verified get.
enum OverlappedHashing {
    /// Values at least this large are hashed on a second thread; below it, starting the thread
    /// costs more than it saves.
    static let threshold = 1 << 20

    /// Bytes handed from the reading thread to the hashing thread at a time.
    private static let chunk = 1 << 20

    /// Writes `bytes` to `fd` with ``Syscalls/writeFully(_:_:)`` while another thread hashes
    /// them; returns the digest once both are done.
    static func write(_ bytes: UnsafeRawBufferPointer, to fd: FileDescriptor) throws -> SHA256Digest {
        let hasher = SHA256Hasher()
        try write(bytes, to: fd, updating: hasher)
        return hasher.finalize()
    }

    /// Writes `bytes` to `fd` while another thread feeds them to `hasher`; returns when both
    /// are done. A stream is copied one piece at a time this way.
    static func write(_ bytes: UnsafeRawBufferPointer, to fd: FileDescriptor, updating hasher: SHA256Hasher) throws {
        nonisolated(unsafe) let shared = bytes
        // Used by the hashing task alone while both run.
        nonisolated(unsafe) let sharedHasher = hasher
        let failure = Mutex<Error?>(nil)
        DispatchQueue.concurrentPerform(iterations: 2) { task in
            if task == 0 {
                sharedHasher.update(shared)
            } else {
                do {
                    try Syscalls.writeFully(fd, shared)
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Reads `fd` from offset 0 into `buffer` until end of file or the buffer is full, while the
    /// calling thread hashes what has been read so far; returns the count and the digest of those
    /// bytes, or `nil` if a read failed (the caller then takes a path that reports it).
    static func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) -> (
        count: Int, digest: SHA256Digest
    )? {
        nonisolated(unsafe) let shared = buffer
        // Bytes read so far, or -1 after a failed read; the reader publishes each chunk here.
        let filled = Atomic<Int>(0)
        let done = Atomic<Bool>(false)
        // Used by the hashing task alone, then read here after both tasks finished.
        nonisolated(unsafe) let hasher = SHA256Hasher()
        // concurrentPerform hands out iterations in index order, so the reader (0) is claimed
        // before the hasher (1): when no second thread is free and both run one after the other
        // on this thread, the hasher finds the reading done and never waits for it.
        DispatchQueue.concurrentPerform(iterations: 2) { task in
            if task == 0 {
                var offset = 0
                while offset < shared.count {
                    let end = min(offset + chunk, shared.count)
                    let piece = UnsafeMutableRawBufferPointer(rebasing: shared[offset..<end])
                    guard let count = try? Syscalls.preadFully(fd, into: piece, at: Int64(offset)) else {
                        filled.store(-1, ordering: .releasing)
                        break
                    }
                    offset += count
                    filled.store(offset, ordering: .releasing)
                    if count < piece.count { break }  // end of file
                }
                done.store(true, ordering: .releasing)
            } else {
                var hashed = 0
                while true {
                    let finished = done.load(ordering: .acquiring)
                    let available = filled.load(ordering: .acquiring)
                    if available < 0 { return }
                    if available > hashed {
                        hasher.update(UnsafeRawBufferPointer(rebasing: shared[hashed..<available]))
                        hashed = available
                    } else if finished {
                        return
                    } else {
                        sched_yield()
                    }
                }
            }
        }
        let count = filled.load(ordering: .acquiring)
        guard count >= 0 else { return nil }
        return (count, hasher.finalize())
    }
}
