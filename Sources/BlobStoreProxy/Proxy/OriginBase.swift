import Foundation

/// The parts of the configured origin's URL that every request sent to it is built on, taken
/// from the URL once: `URL`'s `host`, `port` and `path` parse its string again at every call,
/// and for a request target never seen before (a cold miss) they were a third of finding where
/// it goes.
struct OriginBase: Sendable {
    /// The origin's host, or `nil` when its URL has none (every request is then answered 502).
    let host: String?
    /// The port, 80 when the URL names none.
    let port: UInt16
    /// `host` or `host:port` as the URL gives it: the `Host` field sent.
    let authority: String
    /// The URL's path without a final `/`: request targets are sent below it.
    let pathPrefix: String

    init(_ origin: URL) {
        host = origin.host
        port = UInt16(exactly: origin.port ?? 80) ?? 80
        authority = origin.port.map { "\(origin.host ?? ""):\($0)" } ?? origin.host ?? ""
        let path = origin.path
        pathPrefix = path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}
