/// What a cluster node's error reply asks of the client (https://redis.io/docs/reference/cluster-spec/,
/// "Redirection and resharding" and "Failure detection").
///
/// - `-MOVED 3999 127.0.0.1:6381`: the slot is served by that node now; ask it, and update the map.
/// - `-ASK 3999 127.0.0.1:6381`: the slot is migrating and this key is there: send it that one
///   command, after `ASKING`, and do not update the map.
/// - `-CLUSTERDOWN …`, `-TRYAGAIN …`, `-MASTERDOWN …`, `-LOADING …`: the cluster cannot serve the
///   slot now (a master failed and no replica took over yet, a multi-key operation during a
///   migration, a replica without its master, a node still loading its data).
///
/// An endpoint left empty (`-MOVED 3999 :6381`) is the node that answered; one that is `?` is
/// none, so the slot cannot be served now.
enum ClusterErrorReply: Equatable, Sendable {
    case moved(slot: Int, to: ClusterNode)
    case ask(slot: Int, to: ClusterNode)
    case unavailable(String)

    /// The redirection or condition `message` (an error reply's text) names; `nil` for an
    /// ordinary error (`ERR`, `OOM`, `NOAUTH`, or a redirection that does not parse).
    ///
    /// - Parameter answeredBy: The node that sent it.
    init?(_ message: String, answeredBy: ClusterNode) {
        let words = message.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard let first = words.first else { return nil }
        switch first {
        case "MOVED", "ASK":
            guard words.count == 3, words[1].utf8.count <= 5, let slot = Int(words[1]),
                (0..<HashSlot.count).contains(slot),
                let colon = words[2].lastIndex(of: ":"), let port = UInt16(words[2][words[2].index(after: colon)...]),
                port > 0
            else { return nil }
            var host = String(words[2][..<colon])
            if host.hasPrefix("["), host.hasSuffix("]"), host.count > 2 { host = String(host.dropFirst().dropLast()) }
            if host.isEmpty { host = answeredBy.host }
            if host == "?" {
                self = .unavailable("\(first) \(slot) to a node without an endpoint")
                return
            }
            guard ClusterNode.isValidHost(host) else { return nil }
            let node = ClusterNode(host: host, port: port)
            self = first == "MOVED" ? .moved(slot: slot, to: node) : .ask(slot: slot, to: node)
        case "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "LOADING":
            // At most 200 bytes of it (a cut character becomes U+FFFD): the message goes into
            // errors, and 200 characters could be any number of bytes.
            self = .unavailable(String(decoding: message.utf8.prefix(200), as: UTF8.self))
        default:
            return nil
        }
    }
}
