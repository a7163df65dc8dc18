import Dispatch
import Synchronization

/// Concurrent misses for one URL make one origin request (as nginx's `proxy_cache_lock` and
/// Varnish do): the first request leads and fetches; the others wait for it to finish, then look
/// in the cache again. A follower waits at most the collapse timeout, then fetches itself.
final class RequestCollapsing: Sendable {
    /// One fetch in flight: followers wait on its group.
    final class Flight: Sendable {
        let group = DispatchGroup()
    }

    private let flights = Mutex<[String: Flight]>([:])

    /// Leads the fetch for `key` (returns `nil`: call ``finish(_:)`` when done), or the flight
    /// to wait for when another request leads.
    func lead(_ key: String) -> Flight? {
        flights.withLock { flights in
            if let flight = flights[key] { return flight }
            let flight = Flight()
            flight.group.enter()
            flights[key] = flight
            return nil
        }
    }

    /// Ends the fetch for `key` that this request led, waking its followers.
    func finish(_ key: String) {
        let flight = flights.withLock { $0.removeValue(forKey: key) }
        flight?.group.leave()
    }

    /// Waits up to `timeout` for `flight`; returns whether it finished.
    func wait(for flight: Flight, timeout: Duration) -> Bool {
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        return flight.group.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success
    }
}
