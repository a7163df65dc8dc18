import BlobStore
import CLibSSL

/// Every libssl call the package makes, each wrapped once, as ``SocketSyscalls`` wraps the
/// socket calls. A session reads and writes memory buffers, never the socket: ciphertext goes in
/// with ``feed(_:_:)`` and out with ``takeOutput(_:into:)``, and ``TCPConnection`` moves it over
/// the non-blocking socket, so that every wait is bounded by its deadline and no write raises
/// `SIGPIPE`.
///
/// Each call first clears the thread's OpenSSL error queue, and reads it after a failure, so
/// that a message never carries another call's error.
enum OpenSSL {
    /// How far a read or write went.
    enum Step: Equatable {
        /// This many bytes were read or written.
        case done(Int)
        /// The session needs ciphertext from the server first.
        case needsInput
        /// The server ended the TLS session (close_notify, or the end of the stream).
        case closed
    }

    // MARK: - Contexts

    /// A client context: TLS 1.2 or later, the server's certificate verified against the CAs in
    /// `caFile` (PEM), or the system's CAs (OpenSSL's default paths) when it is `nil`.
    ///
    /// - Throws: ``BlobStoreError/Code/invalidArgument`` when `caFile` cannot be read as PEM
    ///   certificates; `code` when OpenSSL cannot make a context.
    static func makeContext(caFile: String?, caFileOption: String, code: BlobStoreError.Code) throws -> OpaquePointer {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {  // man 3 SSL_CTX_new
            throw BlobStoreError(code, "Cannot set up TLS: \(errors()).")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)  // man 3 SSL_CTX_set_verify
        blobstore_ssl_ctx_ignore_unexpected_eof(context)
        guard blobstore_ssl_ctx_require_tls12(context) == 1 else {
            SSL_CTX_free(context)
            throw BlobStoreError(code, "Cannot set up TLS: \(errors()).")
        }
        if let caFile {
            // man 3 SSL_CTX_load_verify_locations
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                let reason = errors()
                SSL_CTX_free(context)
                throw BlobStoreError(
                    .invalidArgument,
                    "The CA file '\(caFile.prefix(200))' cannot be read as PEM certificates (\(reason)). Check the "
                        + "path (\(caFileOption)).",
                    path: caFile)
            }
        } else if SSL_CTX_set_default_verify_paths(context) != 1 {
            let reason = errors()
            SSL_CTX_free(context)
            throw BlobStoreError(code, "Cannot load the system's CA certificates: \(reason).")
        }
        return context
    }

    static func freeContext(_ context: OpaquePointer) {
        SSL_CTX_free(context)  // man 3 SSL_CTX_free
    }

    // MARK: - Sessions

    /// A client session on memory buffers that checks the server's certificate names `host`: the
    /// IP address when `host` is one, else the DNS name, which is also sent as the server name
    /// (SNI).
    static func makeSession(_ context: OpaquePointer, host: String, server: NetworkPeer) throws -> OpaquePointer {
        ERR_clear_error()
        guard let ssl = SSL_new(context) else {  // man 3 SSL_new
            throw server.failure("cannot start a TLS session: \(errors()).")
        }
        // man 3 BIO_s_mem, SSL_set_bio: the session owns both buffers from here on.
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw server.failure("cannot start a TLS session: \(errors()).")
        }
        SSL_set_bio(ssl, input, output)
        SSL_set_connect_state(ssl)
        // man 3 X509_VERIFY_PARAM_set1_ip_asc: 1 for an IP address, which is checked against the
        // certificate's IP addresses; a name is checked against its DNS names (SSL_set1_host).
        let named: Bool
        if X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 {
            named = true
        } else {
            ERR_clear_error()
            named = SSL_set1_host(ssl, host) == 1 && blobstore_ssl_set_server_name(ssl, host) == 1
        }
        guard named else {
            SSL_free(ssl)
            throw server.failure("cannot check a certificate for '\(host.prefix(100))': \(errors()).")
        }
        return ssl
    }

    static func freeSession(_ ssl: OpaquePointer) {
        SSL_free(ssl)  // man 3 SSL_free: frees its buffers too
    }

    /// One step of the handshake (`SSL_connect`).
    ///
    /// - Returns: `true` once the handshake is complete (its last message may still be in the
    ///   output), `false` when it needs ciphertext from the server.
    /// - Throws: the peer's code (``NetworkPeer``) when the handshake fails: the certificate is
    ///   refused (with the reason), the server does not speak TLS, or it closed the connection.
    static func handshake(_ ssl: OpaquePointer, server: NetworkPeer) throws -> Bool {
        ERR_clear_error()
        let result = SSL_connect(ssl)  // man 3 SSL_connect
        if result == 1 { return true }
        let code = SSL_get_error(ssl, result)  // man 3 SSL_get_error
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return false }
        let verification = SSL_get_verify_result(ssl)  // man 3 SSL_get_verify_result
        if verification != X509_V_OK {
            let reason = String(cString: X509_verify_cert_error_string(verification))
            throw server.failure(
                "the TLS handshake failed: the server's certificate was refused (\(reason)). Check that it names "
                    + "this host and is valid now, and that a trusted CA signed it (\(server.trustedCAs)).")
        }
        if code == SSL_ERROR_ZERO_RETURN {
            throw server.failure("the server ended the TLS handshake.")
        }
        throw server.failure(
            "the TLS handshake failed (\(errors())). Check that the server speaks TLS on this port.")
    }

    /// Decrypts what the input holds into `buffer` (`SSL_read`).
    static func read(_ ssl: OpaquePointer, into buffer: UnsafeMutableRawBufferPointer, server: NetworkPeer) throws
        -> Step
    {
        ERR_clear_error()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))  // man 3 SSL_read
        if count > 0 { return .done(Int(count)) }
        return try outcome(ssl, count, "read", server: server)
    }

    /// Encrypts `buffer` into the output (`SSL_write`); the memory buffer takes all of it.
    static func write(_ ssl: OpaquePointer, _ buffer: UnsafeRawBufferPointer, server: NetworkPeer) throws -> Step {
        guard !buffer.isEmpty else { return .done(0) }
        ERR_clear_error()
        let count = SSL_write(ssl, buffer.baseAddress, Int32(clamping: buffer.count))  // man 3 SSL_write
        if count > 0 { return .done(Int(count)) }
        return try outcome(ssl, count, "write", server: server)
    }

    // MARK: - Ciphertext

    /// Hands the session ciphertext received from the server.
    static func feed(_ ssl: OpaquePointer, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = BIO_write(SSL_get_rbio(ssl), base, Int32(clamping: bytes.count))  // man 3 BIO_write: memory, never fails
    }

    /// Moves ciphertext for the server into `buffer`.
    ///
    /// - Returns: The number of bytes moved; 0 when there are none.
    static func takeOutput(_ ssl: OpaquePointer, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let output = SSL_get_wbio(ssl)
        guard BIO_ctrl_pending(output) > 0 else { return 0 }  // man 3 BIO_ctrl_pending
        return Int(max(0, BIO_read(output, buffer.baseAddress, Int32(clamping: buffer.count))))  // man 3 BIO_read
    }

    // MARK: - Helpers

    /// What a read or write that returned `result` (0 or less) means.
    private static func outcome(_ ssl: OpaquePointer, _ result: Int32, _ what: String, server: NetworkPeer) throws
        -> Step
    {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .needsInput
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: throw server.failure("the TLS connection broke (\(what): \(errors())).")
        }
    }

    /// The reasons in the thread's OpenSSL error queue, which is emptied.
    private static func errors() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()  // man 3 ERR_get_error
            guard code != 0 else { break }
            if reasons.count < 4 {
                reasons.append(ERR_reason_error_string(code).map { String(cString: $0) } ?? "error \(code)")
            }
        }
        return reasons.isEmpty ? "no reason given" : reasons.joined(separator: "; ")
    }
}
