import Foundation

// MARK: - Get or compute, once per key at a time

extension BlobStore {
    /// The value under `key`; when there is none, `produce` makes it, it is stored (with
    /// `metadata` and `expires`) and returned, like diskcache's `memoize`.
    ///
    /// Concurrent callers for one key in this process run `produce` once: the first runs it
    /// and the others wait for its result, the value or the error it threw (nothing is stored
    /// then, and the next call produces again). `produce` runs with no lock of the store held.
    /// Processes do not wait for each other: two of them may each produce the value once.
    ///
    /// - Throws: What `produce` throws, or ``BlobStoreError`` from the store.
    public func value(
        for key: StoreKey, orInsert produce: () throws -> Data, metadata: Data = Data(), expires: Date? = nil
    ) throws -> Data {
        if let value = try value(for: key) { return value }
        let (flight, leads) = flights.withLock { flights -> (Flight, Bool) in
            if let running = flights[key] { return (running, false) }
            let flight = Flight()
            flights[key] = flight
            return (flight, true)
        }
        guard leads else { return try flight.wait().get() }
        let result = Result { () throws -> Data in
            // Another leader may have stored it between the first look and this one.
            if let value = try value(for: key) { return value }
            let data = try produce()
            try put(data, for: key, metadata: metadata, expires: expires)
            return data
        }
        flights.withLock { $0[key] = nil }
        flight.finish(result)
        return try result.get()
    }
}
