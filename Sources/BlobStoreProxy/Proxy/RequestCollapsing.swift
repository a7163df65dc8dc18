import BlobStore
import Synchronization

/// Concurrent misses for one URL make one origin request (as nginx's `proxy_cache_lock` and
/// Varnish do): the first request leads and fetches; the others wait for it to finish, then look
/// in the cache again. A follower waits at most the collapse timeout, then fetches itself. A
/// follower's task is suspended while it waits, on whichever loop it runs: no thread waits.
final class RequestCollapsing: Sendable {
    /// One fetch in flight: the followers suspended until it ends, by a number of their own.
    final class Flight: Sendable {
        private let state = Mutex(State())
        private struct State {
            var finished = false
            var next = 0
            var followers: [Int: UnsafeContinuation<Bool, Never>] = [:]
        }

        /// Adds a follower, resumed with `true` when the flight ends; its number, or `nil` when
        /// the flight has ended already (and the follower was resumed).
        fileprivate func follow(_ continuation: UnsafeContinuation<Bool, Never>) -> Int? {
            let number = state.withLock { state -> Int? in
                guard !state.finished else { return nil }
                state.next += 1
                state.followers[state.next] = continuation
                return state.next
            }
            if number == nil { continuation.resume(returning: true) }
            return number
        }

        /// Resumes follower `number` with `false` (it waited too long), unless the flight ended.
        fileprivate func giveUp(_ number: Int) {
            state.withLock { $0.followers.removeValue(forKey: number) }?.resume(returning: false)
        }

        /// Ends the flight: every follower is resumed with `true`.
        fileprivate func land() {
            let followers = state.withLock { state in
                state.finished = true
                defer { state.followers = [:] }
                return state.followers.values
            }
            for follower in followers { follower.resume(returning: true) }
        }
    }

    private let flights = Mutex<[String: Flight]>([:])

    /// Leads the fetch for `key` (returns `nil`: call ``finish(_:)`` when done), or the flight
    /// to wait for when another request leads.
    func lead(_ key: String) -> Flight? {
        flights.withLock { flights in
            if let flight = flights[key] { return flight }
            flights[key] = Flight()
            return nil
        }
    }

    /// Ends the fetch for `key` that this request led, waking its followers.
    func finish(_ key: String) {
        flights.withLock { $0.removeValue(forKey: key) }?.land()
    }

    /// Waits up to `timeout` (within the loop's sweep interval) for `flight`, suspended on `loop`,
    /// the calling task's; returns whether it finished.
    func wait(for flight: Flight, timeout: Duration, on loop: EventLoop?) async -> Bool {
        guard let loop else { return false }
        return await withUnsafeContinuation { continuation in
            guard let number = flight.follow(continuation) else { return }
            loop.at(.now + timeout) { flight.giveUp(number) }
        }
    }
}
