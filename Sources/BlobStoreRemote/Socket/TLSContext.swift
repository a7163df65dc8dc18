/// The TLS settings every connection of one backend shares (an OpenSSL `SSL_CTX`): TLS 1.2 or
/// later, and the CAs the servers' certificates are checked against, loaded once.
///
/// `@unchecked Sendable`: OpenSSL lets threads make sessions from one context at a time once it
/// is set up, and nothing changes it after ``init(_:)``.
final class TLSContext: @unchecked Sendable {
    let configuration: RemoteTLS
    let context: OpaquePointer

    /// - Throws: `BlobStoreError` with code `invalidArgument` when the CA file cannot be read.
    init(_ configuration: RemoteTLS) throws {
        self.configuration = configuration
        context = try OpenSSL.makeContext(caFile: configuration.caFile)
    }

    deinit { OpenSSL.freeContext(context) }
}
