import Glibc

/// State guarded by a plain `pthread_mutex_t`, for the locks that every request of a server
/// takes (the memory tier's, the HTTP cache's decoded records). `Synchronization.Mutex` on Linux
/// is a priority-inheritance futex: under contention each wait and wake is a `futex_lock_pi`
/// system call and the kernel's PI bookkeeping, which with dozens of threads on two cores cost
/// more than the work the lock guards (docs/benchmarks.md, "Caching proxy"). A normal mutex
/// waits and wakes with the plain futex calls.
///
/// Its methods are inlinable, so that the modules that use it specialize them for their state.
/// It is public under the `BlobStorePackage` SPI, imported as `@_spi(BlobStorePackage) import
/// BlobStore`, rather than `package`: this toolchain does not specialize a `package` inlinable
/// generic in another module, and ran it generic, finding its types' metadata at run time
/// (docs/design.md, "Shared generics across modules").
@_spi(BlobStorePackage) public final class ThreadLock<State>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var state: State

    @_spi(BlobStorePackage) public init(_ state: State) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)  // man 3 pthread_mutex_init: a normal mutex
        self.state = state
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the state, the lock held.
    @inlinable
    @_spi(BlobStorePackage) public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
