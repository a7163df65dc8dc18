/// A host and a port, as `--listen` and `--metrics` take them: `127.0.0.1:8080` or `[::1]:8080`.
struct SocketAddress: Equatable, Sendable {
    /// An IP address or a name, without brackets.
    var host: String
    var port: UInt16

    /// `host:port`, the host in brackets when it has a colon (IPv6) or starts with `[`.
    var text: String {
        host.contains(":") || host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// `text` split at its last colon, the port a number from 0 to 65535, `[v6]` without its
    /// brackets; `nil` without a port, with an empty host or a host with a space.
    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        self.init(host: host, port: port)
    }

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }
}
