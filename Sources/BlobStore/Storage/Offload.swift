import Foundation
import Synchronization

/// Runs `body` on a global dispatch queue, so that an `async` caller's thread never blocks on the
/// disk or the network: the one way every `async` form of the library runs its blocking work.
///
/// A task cancelled before the work starts throws `CancellationError` and does nothing. Once
/// started, the work itself is never interrupted, so a write is never left half-done:
///
/// - `.runToEnd` (writes): the caller waits for the work and gets its result.
/// - `.stopWaiting` (reads): a cancelled caller stops waiting at once and throws
///   `CancellationError`; the read finishes unobserved, and its result is dropped.
///
/// - Parameters:
///   - cancellation: What a cancellation does once the work has started.
///   - body: The blocking work.
package func offload<T: Sendable>(
    _ cancellation: OffloadCancellation = .runToEnd, _ body: @escaping @Sendable () throws -> T
) async throws -> T {
    try Task.checkCancellation()
    guard cancellation == .stopWaiting else {
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
    // Whichever comes first, the result or the cancellation, takes the continuation.
    let waiting = Mutex<CheckedContinuation<T, any Error>?>(nil)
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            waiting.withLock { $0 = continuation }
            DispatchQueue.global().async {
                let result = Result { try body() }
                waiting.withLock { $0.take() }?.resume(with: result)
            }
        }
    } onCancel: {
        waiting.withLock { $0.take() }?.resume(throwing: CancellationError())
    }
}

/// What cancelling the task does to work ``offload(_:_:)`` has started.
package enum OffloadCancellation: Sendable, Equatable {
    /// The caller waits for the work to end and gets its result (writes).
    case runToEnd
    /// The caller stops waiting and throws `CancellationError` (reads).
    case stopWaiting
}
