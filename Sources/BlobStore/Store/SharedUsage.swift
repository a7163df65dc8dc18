import CSharedCounter

/// The ``StoreUsage`` counters in the store's LOCK page, mapped shared by every process that has
/// the store open: bytes 64–71 count hits, 72–79 misses, 80–87 evictions, 88–95 the evictions of
/// expired entries and 96–103 those of idle ones (native-endian `UInt64`, on a cache line apart
/// from the change counter at 0–7). docs/format.md, "LOCK".
final class SharedUsage: @unchecked Sendable {
    /// A counter and its byte offset in the page.
    enum Counter: Int {
        case hits = 64
        case misses = 72
        case evictions = 80
        case expiredEvictions = 88
        case agedEvictions = 96
    }

    // Set once; read and added to only through C11 atomics. The page outlives every use: the
    // store holds this object until it is deinitialised.
    private let page: UnsafeMutableRawPointer
    private let writable: Bool

    /// Maps LOCK's page; `nil` when it cannot be mapped (a read-only store whose LOCK was never
    /// grown to a page by a writer).
    init?(lock: FileDescriptor, writable: Bool) {
        guard let page = Syscalls.mapSharedPage(lock, writable: writable) else { return nil }
        self.page = page
        self.writable = writable
    }

    deinit { Syscalls.unmapSharedPage(page) }

    /// Adds `amount` to `counter`; nothing on a read-only mapping.
    func add(_ counter: Counter, _ amount: Int = 1) {
        guard writable, amount > 0 else { return }
        blobstore_counter_add(pointer(counter), UInt64(amount))
    }

    /// The counts now.
    var totals: StoreUsage {
        StoreUsage(
            hits: blobstore_counter_peek(pointer(.hits)), misses: blobstore_counter_peek(pointer(.misses)),
            evictions: blobstore_counter_peek(pointer(.evictions)),
            expiredEvictions: blobstore_counter_peek(pointer(.expiredEvictions)),
            agedEvictions: blobstore_counter_peek(pointer(.agedEvictions)))
    }

    private func pointer(_ counter: Counter) -> UnsafeMutablePointer<UInt64> {
        (page + counter.rawValue).assumingMemoryBound(to: UInt64.self)
    }
}
