import BlobStore
import BlobStoreHTTP
import Foundation
import Synchronization

/// Where a request goes: the origin's address, the request target to send it, and the URL
/// its response is stored under.
///
/// A class, immutable: targets are remembered by request target and handed to every request
/// for it, and a class is handed on with one reference count, not one per string it holds.
final class ForwardTarget: Sendable, Equatable {
    /// The origin's host and port.
    let host: String
    let port: UInt16
    /// `host:port`, the origin's idle connections' key (``OriginConnections``), made once.
    let origin: String
    /// The `Host` field sent to the origin.
    let authority: String
    /// The request target sent to the origin, in origin form (`/path?query`) or `*`.
    let requestTarget: String
    /// The absolute URL the response is stored under; `nil` when the target is not one (`*`, or
    /// a target Foundation does not parse), so nothing is looked up or stored.
    let url: URL?
    /// The key of the cache entry for ``url`` (`HTTPCache.key(for:)`), made once.
    let storeKey: StoreKey?
    /// Until when (``MonotonicInstant`` nanoseconds) the last response fetched for this target
    /// could not be stored, so that a miss for it is not collapsed (``isUncacheable(at:)``).
    private let uncacheableUntil = Atomic<UInt64>(0)

    /// How long a target whose response could not be stored is fetched without collapsing, as
    /// Varnish's hit-for-miss objects last by default; in nanoseconds (a `Duration` is 128-bit
    /// arithmetic at each response).
    static let uncacheableNanoseconds: Int64 = 120_000_000_000

    init(host: String, port: UInt16, authority: String, requestTarget: String, url: URL?) {
        self.host = host
        self.port = port
        origin = "\(host):\(port)"
        self.authority = authority
        self.requestTarget = requestTarget
        self.url = url
        storeKey = url.map(HTTPCache.key(for:))
    }

    /// Whether the last response fetched for this target, less than ``uncacheableNanoseconds`` before
    /// `now`, could not be stored: concurrent misses for it then each go to the origin at once
    /// rather than wait for one another's response, which they could not use (Varnish's
    /// hit-for-miss).
    func isUncacheable(at now: MonotonicInstant) -> Bool {
        now.nanoseconds < uncacheableUntil.load(ordering: .relaxed)
    }

    /// Notes whether the response fetched at `now` for a GET of this target is being stored.
    func noteResponse(storable: Bool, at now: MonotonicInstant) {
        let until = storable ? 0 : now.advanced(byNanoseconds: Self.uncacheableNanoseconds).nanoseconds
        if uncacheableUntil.load(ordering: .relaxed) != until { uncacheableUntil.store(until, ordering: .relaxed) }
    }

    static func == (left: ForwardTarget, right: ForwardTarget) -> Bool {
        left === right
            || (left.host == right.host && left.port == right.port && left.authority == right.authority
                && left.requestTarget == right.requestTarget && left.url == right.url)
    }

    /// The target of `request`: an absolute-form request goes to the host it names when
    /// `forwardProxy` is on (else to `origin`, with its path); an origin-form one to `origin`.
    ///
    /// - Throws: ``Rejection`` 400 for a target of neither form or without an origin to go to,
    ///   501 for `CONNECT` or an `https` URL (tunnels are not supported).
    static func of(_ request: RequestHead, origin: OriginBase?, forwardProxy: Bool) throws(Rejection) -> ForwardTarget {
        if request.method == "CONNECT" { throw Rejection(501, "CONNECT tunnels are not supported") }
        let target = request.target
        if target.hasPrefix("/") || target == "*" {
            guard let origin else {
                throw Rejection(400, "this forward proxy needs an absolute-form target (http://host/path)")
            }
            return try through(origin, path: target)
        }
        let lowered = target.lowercased()
        if lowered.hasPrefix("https://") {
            throw Rejection(501, "https through the proxy needs CONNECT, which is not supported")
        }
        guard lowered.hasPrefix("http://"), let components = URLComponents(string: target), let host = components.host,
            !host.isEmpty
        else { throw Rejection(400, "the request target is neither /path nor http://host/path") }
        let rest = String(target.dropFirst("http://".count).drop { $0 != "/" && $0 != "?" })
        let path = rest.isEmpty ? "/" : (rest.hasPrefix("?") ? "/" + rest : rest)
        guard forwardProxy else {
            guard let origin else { throw Rejection(400, "no origin") }
            return try through(origin, path: path)
        }
        return try through(OriginBase(host: host, port: components.port, path: ""), path: path)
    }

    /// `path` on `origin`, below the origin's own path.
    private static func through(_ origin: OriginBase, path: String) throws(Rejection) -> ForwardTarget {
        guard let host = origin.host else { throw Rejection(502, "the origin URL has no host") }
        guard path != "*" else {
            return ForwardTarget(
                host: host, port: origin.port, authority: origin.authority, requestTarget: "*", url: nil)
        }
        let requestTarget = origin.pathPrefix + path
        return ForwardTarget(
            host: host, port: origin.port, authority: origin.authority, requestTarget: requestTarget,
            url: URL(string: "http://" + origin.authority + requestTarget))
    }
}
