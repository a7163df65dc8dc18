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

    /// The productions in progress in this process. A key is removed when its production ends,
    /// so the identifier of a storage object that has gone is never found again.
    private static let running = Mutex<[Key: Flight]>([:])
    /// How many productions have landed in this process, of any key.
    private static let landed = Atomic<UInt64>(0)

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var result: Result<Data, any Error>?
    private var waiters = 0
    private var awaiting: [CheckedContinuation<Data, any Error>] = []

    /// A mark to take before looking for a value: a caller that then leads a production needs to
    /// look again only if ``hasLanded(since:)`` (another production may have stored the value
    /// between its look and its joining).
    static func mark() -> UInt64 {
        landed.load(ordering: .acquiring)
    }

    /// Whether any production landed since `mark` was taken.
    static func hasLanded(since mark: UInt64) -> Bool {
        landed.load(ordering: .acquiring) != mark
    }

    /// The production of `key` in `storage` under way, or a new one that the caller leads
    /// (`leads`): it produces and then calls ``land(_:in:_:)``.
    static func join(_ key: StoreKey, in storage: AnyObject) -> (flight: Flight, leads: Bool) {
        let id = Key(storage: ObjectIdentifier(storage), key: key)
        return running.withLock { running in
            if let flight = running[id] { return (flight, false) }
            let flight = Flight()
            running[id] = flight
            return (flight, true)
        }
    }

    /// Ends the production this caller leads: later callers start a new one, and every waiter
    /// gets `result`.
    func land(_ key: StoreKey, in storage: AnyObject, _ result: Result<Data, any Error>) {
        _ = Self.running.withLock { $0.removeValue(forKey: Key(storage: ObjectIdentifier(storage), key: key)) }
        Self.landed.add(1, ordering: .releasing)
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
        guard let flight = running.withLock({ $0[Key(storage: ObjectIdentifier(storage), key: key)] }) else { return 0 }
        flight.condition.lock()
        defer { flight.condition.unlock() }
        return flight.waiters
    }
}
