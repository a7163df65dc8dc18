import Foundation
import Synchronization

/// One production of a value that callers wait for together
/// (``BlobStorage/value(for:orInsert:metadata:expires:)-4wn9h``): the first caller for a key of a
/// storage produces, the others wait for its result, blocking or awaiting.
final class Flight: @unchecked Sendable {
    /// Identifies a production: the storage object and the key.
    private struct Key: Hashable {
        let storage: ObjectIdentifier
        let key: StoreKey
    }

    /// The productions in progress in this process, and which keys' productions landed lately.
    /// A key is removed from `flights` when its production ends, so the identifier of a storage
    /// object that has gone is never found again.
    private struct Registry {
        var flights: [Key: Flight] = [:]
        /// The landing number of each key's last production, for at most 1,024 keys; when more
        /// landed, they are forgotten and `forgottenBefore` says up to which number.
        var landings: [Key: UInt64] = [:]
        var forgottenBefore: UInt64 = 0
    }

    private static let registry = Mutex(Registry())
    /// How many productions have landed in this process, of any key: the number of the last.
    private static let landed = Atomic<UInt64>(0)

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var result: Result<Data, any Error>?
    private var waiters = 0
    private var awaiting: [CheckedContinuation<Data, any Error>] = []

    /// A mark to take before looking for a value (one atomic load), for ``join(_:in:markedAt:)``.
    static func mark() -> UInt64 {
        landed.load(ordering: .acquiring)
    }

    /// The production of `key` in `storage` under way, or a new one that the caller leads
    /// (`leads`): it produces and then calls ``land(_:in:_:)``. A leader must look for the value
    /// again first when `looksAgain`: a production of the same key may have landed (and stored
    /// it) between the look the caller made after taking `mark` and this join.
    static func join(_ key: StoreKey, in storage: AnyObject, markedAt mark: UInt64) -> (
        flight: Flight, leads: Bool, looksAgain: Bool
    ) {
        let id = Key(storage: ObjectIdentifier(storage), key: key)
        return registry.withLock { registry in
            if let flight = registry.flights[id] { return (flight, false, false) }
            let flight = Flight()
            registry.flights[id] = flight
            let looksAgain = (registry.landings[id] ?? 0) > mark || registry.forgottenBefore > mark
            return (flight, true, looksAgain)
        }
    }

    /// Ends the production this caller leads: later callers start a new one, and every waiter
    /// gets `result`.
    func land(_ key: StoreKey, in storage: AnyObject, _ result: Result<Data, any Error>) {
        let id = Key(storage: ObjectIdentifier(storage), key: key)
        Self.registry.withLock { registry in
            registry.flights[id] = nil
            let number = Self.landed.add(1, ordering: .releasing).newValue
            if registry.landings.count >= 1024 {
                registry.landings = [:]
                registry.forgottenBefore = number
            }
            registry.landings[id] = number
        }
        condition.lock()
        self.result = result
        let continuations = awaiting
        awaiting = []
        condition.broadcast()
        condition.unlock()
        for continuation in continuations { continuation.resume(with: result) }
    }

    /// Blocks until the production lands, and returns its result.
    func wait() -> Result<Data, any Error> {
        condition.lock()
        defer { condition.unlock() }
        waiters += 1
        while result == nil { condition.wait() }
        return result!
    }

    /// Awaits the production's landing, and returns its value or throws its error.
    func value() async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            waiters += 1
            if let result {
                condition.unlock()
                continuation.resume(with: result)
            } else {
                awaiting.append(continuation)
                condition.unlock()
            }
        }
    }

    /// How many callers have waited so far for the production of `key` in `storage` under way;
    /// 0 when there is none. For the tests of single flight.
    static func waiterCount(_ key: StoreKey, in storage: AnyObject) -> Int {
        guard let flight = registry.withLock({ $0.flights[Key(storage: ObjectIdentifier(storage), key: key)] }) else {
            return 0
        }
        flight.condition.lock()
        defer { flight.condition.unlock() }
        return flight.waiters
    }
}
