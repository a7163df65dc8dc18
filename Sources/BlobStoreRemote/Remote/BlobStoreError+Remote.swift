import BlobStore
import BlobStoreNet

extension BlobStoreError.Code {
    /// A remote tier failed: it could not be reached, timed out, refused a request or answered
    /// something that is not its protocol. ``TieredStore`` counts these and never passes them on.
    public static let remote = BlobStoreError.Code("remote")
}

extension BlobStoreError {
    /// A remote failure whose message names the server and says what happened.
    ///
    /// - Parameters:
    ///   - server: The server, without credentials (`redis 127.0.0.1:6379`).
    ///   - problem: What went wrong.
    ///   - errno: The `errno` of the failed system call, when there was one.
    static func remote(
        _ server: String, _ problem: String, errno: Int32? = nil, file: StaticString = #fileID, line: UInt = #line
    ) -> BlobStoreError {
        NetworkPeer.remote(server).failure(problem, errno: errno, file: file, line: line)
    }

    /// A reply larger than the caller accepts (``BlobStoreError/Code/tooLarge``): not a failure
    /// of the server, so ``TieredStore`` counts it as a rejected blob, without a cool-down.
    static func remoteTooLarge(
        _ server: String, size: some BinaryInteger, maximum: Int, orMore: Bool = false, file: StaticString = #fileID,
        line: UInt = #line
    ) -> BlobStoreError {
        NetworkPeer.remote(server).tooLarge(size: size, maximum: maximum, orMore: orMore, file: file, line: line)
    }
}

extension NetworkPeer {
    /// A remote server (`redis 127.0.0.1:6379`), whose failures are ``BlobStoreError/Code/remote``.
    static func remote(_ server: String) -> NetworkPeer {
        NetworkPeer(
            name: server, label: "Remote \(server)", code: .remote, addressAdvice: "Check the remote URL.",
            trustedCAs: "the CA file, --remote-ca, or the system's CAs")
    }
}

extension TLSContext {
    /// The context of a backend's connections, with the CAs of `configuration`.
    ///
    /// - Throws: `BlobStoreError` with code `invalidArgument` when the CA file cannot be read.
    convenience init(_ configuration: RemoteTLS) throws {
        try self.init(caFile: configuration.caFile, caFileOption: "--remote-ca, BLOBSTORE_REMOTE_CA", code: .remote)
    }
}

extension RemoteTimeouts {
    /// The timeouts of making a connection: the TLS handshake within the operation timeout.
    var connecting: ConnectTimeouts {
        ConnectTimeouts(nameResolution: nameResolution, connect: connect, handshake: operation)
    }
}
