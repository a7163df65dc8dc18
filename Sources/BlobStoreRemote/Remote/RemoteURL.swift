import BlobStore
import Foundation

/// Turns a remote URL, as given to `--remote` or `$BLOBSTORE_REMOTE`, into a backend.
///
/// - `http://[USER:PASSWORD@]HOST[:PORT][/PATH]`, `https://…`: ``HTTPCacheBackend``; a bearer
///   token may come from `$BLOBSTORE_REMOTE_TOKEN`.
/// - `redis://[[USER:]PASSWORD@]HOST[:PORT][,HOST[:PORT]…][/DB]`: ``RedisBackend``, with one
///   shard per host (all with the same credentials and database), as ccache writes them;
///   `rediss://…` the same over TLS.
/// - `redis+cluster://[[USER:]PASSWORD@]HOST[:PORT][,HOST[:PORT]…]`: ``RedisClusterBackend``,
///   with the hosts as seeds and the credentials for every node of the cluster;
///   `rediss+cluster://…` the same over TLS to every node.
public enum RemoteURL {
    /// The backend `text` names.
    ///
    /// - Parameters:
    ///   - text: The URL.
    ///   - timeouts: The connect and per-operation timeouts.
    ///   - tls: The CAs trusted for `https://` and `rediss://` servers.
    ///   - environment: Consulted for `BLOBSTORE_REMOTE_TOKEN`.
    /// - Throws: `BlobStoreError` with code `invalidArgument` for a URL that is not one of the
    ///   forms, or a CA file that cannot be read.
    public static func backend(
        _ text: String, timeouts: RemoteTimeouts = RemoteTimeouts(), tls: RemoteTLS = RemoteTLS(),
        environment: [String: String] = [:]
    ) throws -> any RemoteBackend {
        let lowered = text.lowercased()
        if lowered.hasPrefix("redis://") || lowered.hasPrefix("rediss://") {
            return try RedisBackend(shards: try redisServers(text), timeouts: timeouts, tls: tls)
        }
        if lowered.hasPrefix("redis+cluster://") || lowered.hasPrefix("rediss+cluster://") {
            return try RedisClusterBackend(seeds: try clusterSeeds(text), timeouts: timeouts, tls: tls)
        }
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let url = URL(string: text) else { throw invalid(text) }
            let token = environment["BLOBSTORE_REMOTE_TOKEN"]
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
            return try HTTPCacheBackend(
                baseURL: url, authentication: token.map(HTTPAuthentication.bearer), timeouts: timeouts, tls: tls)
        }
        throw invalid(text)
    }

    /// The servers of a `redis://` or `rediss://` URL.
    static func redisServers(_ text: String) throws -> [RedisServer] {
        let usesTLS = text.lowercased().hasPrefix("rediss://")
        return try servers(text, scheme: usesTLS ? "rediss://" : "redis://", allowsDatabase: true, usesTLS: usesTLS)
    }

    /// The seeds of a `redis+cluster://` or `rediss+cluster://` URL (a cluster has no database
    /// but 0: no `/DB`).
    static func clusterSeeds(_ text: String) throws -> [RedisServer] {
        let usesTLS = text.lowercased().hasPrefix("rediss+cluster://")
        return try servers(
            text, scheme: usesTLS ? "rediss+cluster://" : "redis+cluster://", allowsDatabase: false, usesTLS: usesTLS)
    }

    /// `[[USER:]PASSWORD@]HOST[:PORT][,HOST[:PORT]…]` after `scheme`, and `[/DB]` if allowed.
    private static func servers(_ text: String, scheme: String, allowsDatabase: Bool, usesTLS: Bool) throws
        -> [RedisServer]
    {
        var rest = Substring(text.dropFirst(scheme.count))
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let number = rest[rest.index(after: slash)...]
            guard allowsDatabase || number.isEmpty else { throw invalid(text) }
            guard number.isEmpty || Int(number).map({ $0 >= 0 }) == true else { throw invalid(text) }
            database = Int(number) ?? 0
            rest = rest[..<slash]
        }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let name = String(credentials[..<colon]).removingPercentEncoding ?? ""
                user = name.isEmpty ? nil : name
                password = String(credentials[credentials.index(after: colon)...]).removingPercentEncoding
            } else {
                password = String(credentials).removingPercentEncoding
            }
        }
        let servers = try rest.split(separator: ",", omittingEmptySubsequences: false).map { hostPort in
            let (host, port) = try split(hostPort, text)
            return RedisServer(
                host: host, port: port, user: user, password: password, database: database, usesTLS: usesTLS)
        }
        guard !servers.isEmpty else { throw invalid(text) }
        return servers
    }

    /// `HOST[:PORT]` or `[IPV6][:PORT]`.
    private static func split(_ hostPort: Substring, _ text: String) throws -> (String, UInt16) {
        var host = hostPort
        var portText: Substring = ""
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let after = host[host.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw invalid(text) }
            portText = after.dropFirst()
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" || $0 == "@" }) else { throw invalid(text) }
        guard portText.isEmpty || UInt16(portText).map({ $0 > 0 }) == true else { throw invalid(text) }
        return (String(host), UInt16(portText) ?? 6379)
    }

    private static func invalid(_ text: String) -> BlobStoreError {
        BlobStoreError(
            .invalidArgument,
            "The remote URL '\(redacted(text).prefix(200))' is invalid. Use http://HOST[:PORT][/PATH], https://…, "
                + "redis://[[USER:]PASSWORD@]HOST[:PORT][,HOST[:PORT]…][/DB], rediss://… (TLS), or "
                + "redis+cluster://[[USER:]PASSWORD@]HOST:PORT[,HOST:PORT…] (rediss+cluster://… over TLS).")
    }

    /// `text` with any credentials replaced by `***`, for messages: what lies between the
    /// scheme's `://` and the last `@` after it; without a scheme (letters, digits, `+-.` before
    /// the first `://`), everything before the last `@`.
    static func redacted(_ text: String) -> String {
        var afterScheme = text.startIndex
        if let separator = text.range(of: "://"), !text[..<separator.lowerBound].isEmpty,
            text[..<separator.lowerBound].allSatisfy({
                $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0))
            })
        {
            afterScheme = separator.upperBound
        }
        guard let at = text[afterScheme...].lastIndex(of: "@") else { return text }
        var shown = text
        shown.replaceSubrange(afterScheme..<at, with: "***")
        return shown
    }
}
