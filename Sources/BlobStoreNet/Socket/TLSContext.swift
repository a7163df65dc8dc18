import BlobStore

/// The TLS settings every connection of one client shares (an OpenSSL `SSL_CTX`): TLS 1.2 or
/// later, and the CAs the servers' certificates are checked against, loaded once.
///
/// `@unchecked Sendable`: OpenSSL lets threads make sessions from one context at a time once it
/// is set up, and nothing changes it after ``init(caFile:caFileOption:code:)``.
package final class TLSContext: @unchecked Sendable {
    /// The PEM file of the CAs trusted instead of the system's; `nil` trusts the system's.
    package let caFile: String?
    let context: OpaquePointer

    /// - Parameters:
    ///   - caFile: The CA certificates to trust instead of the system's (PEM), or `nil`.
    ///   - caFileOption: Where the user set `caFile`, for the message when it cannot be read
    ///     (`--remote-ca, BLOBSTORE_REMOTE_CA`).
    ///   - code: The code of the error when OpenSSL cannot make a context.
    /// - Throws: `BlobStoreError` with code `invalidArgument` when the CA file cannot be read.
    package init(caFile: String?, caFileOption: String, code: BlobStoreError.Code) throws {
        self.caFile = caFile
        context = try OpenSSL.makeContext(caFile: caFile, caFileOption: caFileOption, code: code)
    }

    deinit { OpenSSL.freeContext(context) }
}
