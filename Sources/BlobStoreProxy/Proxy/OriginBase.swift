import Foundation

/// The parts of an origin's URL that every request sent to it is built on. The configured
/// origin's are taken from its URL once: `URL`'s `host`, `port` and `path` parse its string again
/// at every call, and for a request target never seen before (a cold miss) they were a third of
/// finding where it goes.
struct OriginBase: Sendable {
    /// The origin's host, or `nil` when its URL has none (every request is then answered 502).
    let host: String?
    /// The port, 80 when the URL names none.
    let port: UInt16
    /// `host` or `host:port` as the URL gives it: the `Host` field sent.
    let authority: String
    /// The URL's path without a final `/`: request targets are sent below it.
    let pathPrefix: String

    /// The parts of `origin`.
    init(_ origin: URL) {
        self.init(host: origin.host, port: origin.port, path: origin.path)
    }

    /// The parts of an origin at `host` and `port` (80 when `nil`), below `path`.
    init(host: String?, port: Int?, path: String) {
        self.host = host
        self.port = UInt16(exactly: port ?? 80) ?? 80
        authority = port.map { "\(host ?? ""):\($0)" } ?? host ?? ""
        pathPrefix = path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}
