import BlobStore
import Foundation
import Glibc
import Synchronization

/// Resolves host names, waiting at most a timeout.
///
/// `getaddrinfo` can be neither interrupted nor given a deadline (a resolver that does not
/// answer holds it for `timeout:` × `attempts:` of resolv.conf, per name in the search list), so
/// each lookup runs on a thread of its own and the caller waits for its result at most its
/// timeout. A lookup that outlives its callers finishes unobserved. A caller that asks for a name
/// and port whose lookup is still running joins that lookup instead of starting another: a
/// resolver that hangs costs one thread per name, not one per operation. Numeric addresses
/// (`127.0.0.1`, `::1`) are converted at once, on the caller's thread.
package final class NameResolver: Sendable {
    /// What a lookup yields: the addresses, or why there are none.
    package typealias Lookup = @Sendable (_ host: String, _ port: UInt16) -> Result<[SocketAddress], LookupFailure>

    /// Why a name did not resolve (`gai_strerror`'s text).
    package struct LookupFailure: Error {
        package let reason: String

        package init(reason: String) {
            self.reason = reason
        }
    }

    /// `getaddrinfo` with the system's resolver.
    package static let system = NameResolver { host, port in SocketSyscalls.addresses(host, port, numericOnly: false) }

    private let lookup: Lookup
    /// The lookups under way, by `host port`.
    private let running = Mutex<[String: RunningLookup]>([:])

    /// - Parameter lookup: Resolves a name; called on a thread of its own. Tests pass one that
    ///   stalls.
    package init(lookup: @escaping Lookup) {
        self.lookup = lookup
    }

    /// The addresses of `host`, port `port`.
    ///
    /// - Parameters:
    ///   - timeout: The longest wait for a name that is not a numeric address.
    ///   - server: The server, without credentials, for messages.
    /// - Throws: the peer's code (``NetworkPeer``) when the name does not resolve, or not within
    ///   `timeout` (with `errno` `ETIMEDOUT`).
    package func resolve(host: String, port: UInt16, timeout: Duration, server: NetworkPeer) throws -> [SocketAddress] {
        if case .success(let numeric) = SocketSyscalls.addresses(host, port, numericOnly: true), !numeric.isEmpty {
            return numeric
        }
        let key = "\(host) \(port)"
        let (pending, isNew) = running.withLock { running in
            if let pending = running[key] { return (pending, false) }
            let pending = RunningLookup()
            running[key] = pending
            return (pending, true)
        }
        if isNew {
            Thread.detachNewThread { [self] in
                let result = lookup(host, port)
                running.withLock { running in
                    if running[key] === pending { running[key] = nil }
                }
                pending.finish(result)
            }
        }
        guard let result = pending.wait(timeout) else {
            throw server.failure(
                "resolving '\(host)' took longer than \(timeout). Check the DNS, or use an IP address.",
                errno: ETIMEDOUT)
        }
        switch result {
        case .success(let addresses) where !addresses.isEmpty:
            return addresses
        case .success:
            throw server.failure("cannot resolve '\(host)': no address. \(server.addressAdvice)")
        case .failure(let failure):
            throw server.failure("cannot resolve '\(host)': \(failure.reason). \(server.addressAdvice)")
        }
    }
}

/// One lookup under way: its result once it is there, and the callers waiting for it.
private final class RunningLookup: Sendable {
    typealias Outcome = Result<[SocketAddress], NameResolver.LookupFailure>

    private let state = Mutex<(result: Outcome?, waiters: [DispatchSemaphore])>((nil, []))

    /// Hands `result` to every caller waiting, and to every later one.
    func finish(_ result: Outcome) {
        let waiters = state.withLock { state in
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.signal() }
    }

    /// The result, waiting at most `timeout` for it; `nil` when it did not come in time.
    func wait(_ timeout: Duration) -> Outcome? {
        let semaphore = DispatchSemaphore(value: 0)
        let ready = state.withLock { state -> Outcome? in
            if let result = state.result { return result }
            state.waiters.append(semaphore)
            return nil
        }
        if let ready { return ready }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = min(max(0, seconds), 1 << 32) * 1_000_000_000 + max(0, attoseconds / 1_000_000_000)
        _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds)))
        return state.withLock { $0.result }
    }
}
