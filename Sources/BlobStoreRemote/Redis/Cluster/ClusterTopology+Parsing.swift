import Foundation

// The two topology replies (RESP2), parsed into a ``ClusterTopology``. Each parse is pure and
// refuses the whole reply at the first thing it does not accept: the replies come from the
// network, and a node that answers something else is not trusted for the map.
//
// `CLUSTER SHARDS` (Redis 7+, https://redis.io/commands/cluster-shards/): an array of shards,
// each a flat map `slots` (start and end slots, in pairs) and `nodes` (each a flat map with
// `port`, `ip`, `endpoint`, `role`, `health`, … among other fields, which are ignored).
//
// `CLUSTER SLOTS` (Redis 3+, https://redis.io/commands/cluster-slots/): an array of ranges,
// each `start`, `end`, then the master and its replicas, each `host`, `port`, then fields that
// are ignored (node id, networking metadata).
//
// A node's endpoint (SHARDS' `endpoint`, falling back to `ip`; SLOTS' host) that is null or
// empty means "the node you asked" (the spec: an unknown endpoint, behind a load balancer, say);
// `?` means the node has none (misconfigured): it is skipped, and a range whose master has none
// stays unserved. A node without the port the client speaks (`port` for plain TCP, `tls-port`
// for TLS) is skipped too. `CLUSTER SLOTS` answers with the port of the asking connection's kind.
extension ClusterTopology {
    /// The RESP limits of a topology reply: strings of a few hundred bytes, and an array budget
    /// for thousands of nodes and a slot map cut into single slots (about 330,000 elements).
    static let replyLimits = RESPLimits(maximumBulk: 4 << 10, maximumArrayBytes: 32 << 20)

    /// The topology a `CLUSTER SHARDS` reply describes.
    ///
    /// - Parameters:
    ///   - askedHost: The host the command was sent to, for endpoints that are unknown.
    ///   - usesTLS: Whether the client speaks TLS: each node's `tls-port` is then its port.
    /// - Throws: ``Malformed`` for a reply that is not one.
    init(shardsReply reply: RESPValue, askedHost: String, usesTLS: Bool = false) throws {
        self.init()
        guard case .array(let shards?) = reply else { throw Malformed(description: "not an array of shards") }
        for shard in shards {
            let fields = try Self.map(shard, "a shard")
            guard case .array(let slots?) = fields["slots"], case .array(let nodes?) = fields["nodes"] else {
                throw Malformed(description: "a shard without slots or nodes")
            }
            guard slots.count % 2 == 0 else { throw Malformed(description: "an odd number of slot bounds") }
            var master: ClusterNode?
            var masterIsHealthy = false
            var replicas: [ClusterNode] = []
            for node in nodes {
                let fields = try Self.map(node, "a node")
                let role = fields["role"]?.text
                guard role == "master" || role == "replica" else { throw Malformed(description: "a node's role") }
                guard let address = try Self.shardNode(fields, askedHost: askedHost, usesTLS: usesTLS) else { continue }
                let healthy = fields["health"]?.text == "online"
                if role == "master", master == nil || (healthy && !masterIsHealthy) {
                    if let master { replicas.append(master) }
                    master = address
                    masterIsHealthy = healthy
                } else {
                    replicas.append(address)
                }
            }
            guard let master else { continue }  // no reachable master: its slots stay unserved
            for pair in stride(from: 0, to: slots.count, by: 2) {
                try add(
                    try Self.slotRange(slots[pair], slots[pair + 1]), master: master,
                    replicas: replicas.filter { $0 != master })
            }
        }
    }

    /// The topology a `CLUSTER SLOTS` reply describes.
    ///
    /// - Parameter askedHost: The host the command was sent to, for endpoints that are unknown.
    /// - Throws: ``Malformed`` for a reply that is not one.
    init(slotsReply reply: RESPValue, askedHost: String) throws {
        self.init()
        guard case .array(let ranges?) = reply else { throw Malformed(description: "not an array of slot ranges") }
        for entry in ranges {
            guard case .array(let fields?) = entry, fields.count >= 3 else {
                throw Malformed(description: "a slot range without a master")
            }
            let range = try Self.slotRange(fields[0], fields[1])
            let nodes = try fields[2...].map { try Self.slotsNode($0, askedHost: askedHost) }
            guard let master = nodes[0] else { continue }  // no endpoint: the range stays unserved
            try add(range, master: master, replicas: nodes.dropFirst().compactMap { $0 })
        }
    }

    // MARK: - Fields

    /// A flat map (`key, value, key, value…`) by its keys; the first of a key repeated wins.
    private static func map(_ value: RESPValue, _ what: String) throws -> [String: RESPValue] {
        guard case .array(let elements?) = value, elements.count % 2 == 0 else {
            throw Malformed(description: "\(what) that is not a map")
        }
        var fields: [String: RESPValue] = [:]
        for pair in stride(from: 0, to: elements.count, by: 2) {
            guard let key = elements[pair].text else { throw Malformed(description: "\(what) with a key not text") }
            if fields[key] == nil { fields[key] = elements[pair + 1] }
        }
        return fields
    }

    /// A node of `CLUSTER SHARDS`, or `nil` when it cannot be reached (no port of the client's
    /// kind, endpoint `?`).
    private static func shardNode(_ fields: [String: RESPValue], askedHost: String, usesTLS: Bool) throws
        -> ClusterNode?
    {
        guard let portValue = fields[usesTLS ? "tls-port" : "port"] else { return nil }
        let port = try self.port(portValue)
        let endpoint = fields["endpoint"] ?? fields["ip"] ?? .bulk(nil)
        return try node(endpoint, port: port, askedHost: askedHost)
    }

    /// A node of `CLUSTER SLOTS` (`host, port, …`), or `nil` when its endpoint is `?`.
    private static func slotsNode(_ value: RESPValue, askedHost: String) throws -> ClusterNode? {
        guard case .array(let fields?) = value, fields.count >= 2 else {
            throw Malformed(description: "a node without a host and a port")
        }
        return try node(fields[0], port: try port(fields[1]), askedHost: askedHost)
    }

    private static func node(_ endpoint: RESPValue, port: UInt16, askedHost: String) throws -> ClusterNode? {
        switch endpoint {
        case .bulk(nil), .bulk(Data()), .simple(""):
            return ClusterNode(host: askedHost, port: port)
        default:
            guard let host = endpoint.text else { throw Malformed(description: "a node's endpoint") }
            if host == "?" { return nil }
            guard ClusterNode.isValidHost(host) else { throw Malformed(description: "a node's endpoint") }
            return ClusterNode(host: host, port: port)
        }
    }

    private static func port(_ value: RESPValue) throws -> UInt16 {
        guard let number = integer(value), let port = UInt16(exactly: number), port > 0 else {
            throw Malformed(description: "a node's port")
        }
        return port
    }

    private static func slotRange(_ start: RESPValue, _ end: RESPValue) throws -> ClosedRange<Int> {
        guard let start = integer(start), let end = integer(end), start >= 0, start <= end,
            end < Int64(HashSlot.count)
        else { throw Malformed(description: "a slot range") }
        return Int(start)...Int(end)
    }

    /// An integer, or a bulk string of decimal digits.
    private static func integer(_ value: RESPValue) -> Int64? {
        switch value {
        case .integer(let number): return number
        case .bulk(let data?) where data.count <= 20 && data.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }):
            return Int64(String(decoding: data, as: UTF8.self))
        default: return nil
        }
    }
}
