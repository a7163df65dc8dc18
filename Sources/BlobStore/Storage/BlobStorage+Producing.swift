import Foundation

// MARK: - Get or compute, once per key at a time

extension BlobStorage {
    /// The value under `key`; when there is none, `produce` makes it, it is stored (with
    /// `metadata` and `expires`, ``StoragePlacement/memoryAndDisk``) and returned, like
    /// diskcache's `memoize`.
    ///
    /// Concurrent callers for one key of one storage in this process run `produce` once: the
    /// first runs it and the others wait for its result, the value or the error it threw
    /// (nothing is stored then, and the next call produces again). `produce` runs with no lock
    /// of the storage held. Processes do not wait for each other: two of them may each produce
    /// the value once. A miss costs one look, and a second one only when another production of
    /// the same key landed between the first look and joining.
    ///
    /// - Throws: What `produce` throws, or ``BlobStoreError`` from the storage.
    public func value(
        for key: StoreKey, orInsert produce: () throws -> Data, metadata: Data = Data(), expires: Date? = nil
    ) throws -> Data {
        let mark = Flight.mark()
        if let value = try value(for: key) { return value }
        let (flight, leads, looksAgain) = Flight.join(key, in: self, markedAt: mark)
        guard leads else { return try flight.wait().get() }
        let result = Result { () throws -> Data in
            // Another leader stored it between the first look and joining.
            if looksAgain, let value = try value(for: key) { return value }
            let data = try produce()
            try put(data, for: key, metadata: metadata, expires: expires, placement: .memoryAndDisk)
            return data
        }
        flight.land(key, in: self, result)
        return try result.get()
    }

    /// `async` ``value(for:orInsert:metadata:expires:)-4wn9h``, with a producer that is awaited. Callers
    /// that find a production under way await it (also a blocking caller's). A leader cancelled
    /// while `produce` runs gets what `produce` does with the cancellation; so do its waiters.
    ///
    /// - Throws: What `produce` throws, `CancellationError` when the task is cancelled before
    ///   anything starts, or ``BlobStoreError`` from the storage.
    public func value(
        for key: StoreKey, orInsert produce: @Sendable () async throws -> Data, metadata: Data = Data(),
        expires: Date? = nil
    ) async throws -> Data {
        let mark = Flight.mark()
        if let value = try await value(for: key) { return value }
        let (flight, leads, looksAgain) = Flight.join(key, in: self, markedAt: mark)
        guard leads else { return try await flight.value() }
        let result: Result<Data, any Error>
        do {
            if looksAgain, let value = try await value(for: key) {
                result = .success(value)
            } else {
                let data = try await produce()
                try await put(data, for: key, metadata: metadata, expires: expires, placement: .memoryAndDisk)
                result = .success(data)
            }
        } catch {
            result = .failure(error)
        }
        flight.land(key, in: self, result)
        return try result.get()
    }
}
