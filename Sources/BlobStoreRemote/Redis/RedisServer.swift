/// One Redis server: where it is, and how to log in.
public struct RedisServer: Sendable, Equatable, CustomStringConvertible {
    /// A host name or IP address.
    public var host: String
    /// The TCP port. (default: 6379)
    public var port: UInt16
    /// The ACL user for `AUTH user password`; `nil` authenticates as the default user.
    public var user: String?
    /// The password for `AUTH`; `nil` sends no `AUTH`.
    public var password: String?
    /// The database number for `SELECT`. (default: 0)
    public var database: Int
    /// Whether to speak TLS (`rediss://`), with the server's certificate verified against the
    /// backend's ``RemoteTLS``. (default: `false`)
    public var usesTLS: Bool

    /// - Parameters:
    ///   - host: A host name or IP address.
    ///   - port: The TCP port.
    ///   - user: The ACL user, or `nil` for the default user.
    ///   - password: The password, or `nil` for none.
    ///   - database: The database number.
    ///   - usesTLS: Whether to speak TLS.
    public init(
        host: String, port: UInt16 = 6379, user: String? = nil, password: String? = nil, database: Int = 0,
        usesTLS: Bool = false
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.usesTLS = usesTLS
    }

    /// `redis://host:port/db` (`rediss://` with TLS), without credentials.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return (usesTLS ? "rediss://" : "redis://") + "\(shownHost):\(port)" + (database == 0 ? "" : "/\(database)")
    }
}
