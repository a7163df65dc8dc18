import Foundation

/// One production of a value that threads wait for together
/// (``BlobStore/value(for:orInsert:metadata:expires:)``): the first caller produces, the others
/// wait for its result.
final class Flight: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var result: Result<Data, any Error>?
    private var waiters = 0

    /// Blocks until ``finish(_:)`` is called, and returns what it was given.
    func wait() -> Result<Data, any Error> {
        condition.lock()
        defer { condition.unlock() }
        waiters += 1
        while result == nil { condition.wait() }
        return result!
    }

    /// How many callers have waited for this production so far.
    var waiterCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiters
    }

    /// Hands `result` to every waiter, present and future.
    func finish(_ result: Result<Data, any Error>) {
        condition.lock()
        self.result = result
        condition.broadcast()
        condition.unlock()
    }
}
