import BlobStore
import BlobStoreRemote
import Foundation

/// `blobstore remote ping [--json]`: its description, its value, and its run below.
struct RemoteCommand: SubcommandValue {
    /// What `remote` does: only `ping` so far.
    enum Action: String, CaseIterable, Sendable {
        /// One request to every server or node of the remote.
        case ping
    }

    var action = Action.ping
    /// `--json`: print the remote and its nodes as a JSON object.
    var json = false

    static let spec = CommandSpec<RemoteCommand>(
        .remote,
        abstract: "Check the remote tier: 'remote ping' reaches each of its servers or nodes.",
        discussion: "'remote ping' sends one request to each server or node of the remote (--remote or "
            + "$BLOBSTORE_REMOTE) and prints a line for each: its role (server: an HTTP cache or a Redis "
            + "shard; master or replica: a Redis Cluster node, from the topology the seeds report; seed: a "
            + "seed when no topology could be fetched), the time the request took, connecting included, "
            + "and its URL, or 'unreachable' and why. Opens no store. Exits 69 if any could not be reached.",
        usesStore: false, remote: .remote,
        arguments: [.required("<action>", help: "ping: reach each server or node of the remote.", .choice, \.action)],
        options: [.flag("--json", help: "Print the remote and its nodes as a JSON object.", \.json)])

    func run(in runner: Runner) throws -> Int32 {
        switch action {
        case .ping: try runner.remotePing(self)
        }
    }
}

extension Runner {
    /// `remote ping [--json]`: one request to each server or node of the remote, a line for each
    /// (its role, the time the request took or `unreachable`, its URL, and why it could not be
    /// reached), or with `json` one JSON object. Opens no store.
    ///
    /// - Returns: 0 when every node answered.
    /// - Throws: ``CommandFailure`` with exit 64 without a remote, 69 when a node could not be
    ///   reached.
    func remotePing(_ command: RemoteCommand) throws -> Int32 {
        guard let remote = try remoteBackend() else {
            throw CommandFailure(ExitCode.usage, "No remote to ping: pass --remote <url> or set BLOBSTORE_REMOTE.")
        }
        let nodes = remote.ping()
        if command.json {
            try output.writeJSON(PingReport(remote: remote.name, nodes: nodes.map(PingReport.Node.init)))
        } else {
            try output.write(nodes.map(Self.pingLine).joined())
        }
        let unreachable = nodes.filter { !$0.isReachable }.count
        guard unreachable == 0 else {
            throw CommandFailure(
                ExitCode.remoteUnreachable,
                "\(unreachable) of \(Self.count(nodes.count, "node", "nodes")) of \(remote.name) could not be reached.")
        }
        return ExitCode.success
    }

    /// `master   0.41 ms      redis://127.0.0.1:7000`, or `unreachable` and the error after the
    /// URL.
    static func pingLine(_ node: RemoteNodeStatus) -> String {
        let role = node.role.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
        let latency = (node.latency.map(milliseconds) ?? "unreachable").padding(
            toLength: 13, withPad: " ", startingAt: 0)
        let reason = node.error.map { "  \($0.description)" } ?? ""
        return role + latency + node.node + reason + "\n"
    }

    /// `0.41 ms`.
    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.2f ms", PingReport.Node.milliseconds(duration))
    }
}

/// `remote ping --json`: the remote's name and each node, its role, latency in milliseconds and
/// error (`null` when there is none).
private struct PingReport: Encodable {
    struct Node: Encodable {
        var node: String
        var role: RemoteNodeStatus.Role
        var latencyMilliseconds: Double?
        var error: String?

        init(_ status: RemoteNodeStatus) {
            node = status.node
            role = status.role
            latencyMilliseconds = status.latency.map(Self.milliseconds)
            error = status.error?.description
        }

        static func milliseconds(_ duration: Duration) -> Double {
            let (seconds, attoseconds) = duration.components
            return Double(seconds) * 1000 + Double(attoseconds) / 1e15
        }

        enum CodingKeys: String, CodingKey {
            case node, role, latencyMilliseconds, error
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(node, forKey: .node)
            try container.encode(role, forKey: .role)
            try container.encode(latencyMilliseconds, forKey: .latencyMilliseconds)  // null, not absent
            try container.encode(error, forKey: .error)
        }
    }

    var remote: String
    var nodes: [Node]
}
