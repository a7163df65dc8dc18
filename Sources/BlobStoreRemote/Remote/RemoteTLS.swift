/// How a backend checks the servers of `https://`, `rediss://` and `rediss+cluster://` URLs: TLS 1.2 or later, the
/// server's certificate verified (its chain up to a trusted CA, its dates, and that it names the
/// host of the URL: the DNS name, also sent as the server name (SNI), or the IP address).
/// Verification cannot be turned off.
public struct RemoteTLS: Sendable, Equatable {
    /// A PEM file with the CA certificates to trust instead of the system's (OpenSSL's default
    /// paths, `/etc/ssl/certs` on Debian); `nil` trusts the system's. (default: `nil`)
    public var caFile: String?

    /// - Parameter caFile: The CA certificates to trust instead of the system's.
    public init(caFile: String? = nil) {
        self.caFile = caFile
    }
}
