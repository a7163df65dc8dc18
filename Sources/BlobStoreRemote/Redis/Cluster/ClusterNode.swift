/// Where a cluster node listens, as the topology and the redirections name it.
struct ClusterNode: Hashable, Sendable, CustomStringConvertible {
    /// A host name or IP address.
    var host: String
    var port: UInt16

    /// `host:port`, `[::1]:port` for an IPv6 address.
    var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// The longest host name accepted from a node (RFC 1035: 253 characters, and some room).
    static let maximumHostLength = 255

    /// A host as a node reports it: not empty, at most ``maximumHostLength`` bytes, printable
    /// ASCII without spaces, brackets (an IPv6 address comes without them) or the characters of
    /// a URL's other parts.
    static func isValidHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= maximumHostLength
            && host.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && !"/@,?#[]".utf8.contains($0) }
    }
}
