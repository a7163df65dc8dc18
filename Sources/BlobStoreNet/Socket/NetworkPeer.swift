import BlobStore

/// The server at the other end of a connection, as errors name it: every failure of this
/// module's sockets, name resolution and TLS is a `BlobStoreError` made here, with the code and
/// the advice of the module that opened the connection (the remote tier's `remote`, the HTTP
/// cache's `network`).
package struct NetworkPeer: Sendable {
    /// The server, without credentials (`redis 127.0.0.1:6379`, `http://example.com:80`).
    package let name: String
    /// Every message begins with this, then `": "` (`Remote redis 127.0.0.1:6379`).
    package let label: String
    /// The code of every failure.
    package let code: BlobStoreError.Code
    /// What to check when a name does not resolve (`Check the remote URL.`).
    package let addressAdvice: String
    /// Where the trusted CAs come from, for a refused certificate (`the CA file, --remote-ca, or
    /// the system's CAs`).
    package let trustedCAs: String

    package init(name: String, label: String, code: BlobStoreError.Code, addressAdvice: String, trustedCAs: String) {
        self.name = name
        self.label = label
        self.code = code
        self.addressAdvice = addressAdvice
        self.trustedCAs = trustedCAs
    }

    /// A failure: `<label>: <problem>`.
    ///
    /// - Parameter errno: The `errno` of the failed system call, when there was one.
    package func failure(
        _ problem: String, errno: Int32? = nil, file: StaticString = #fileID, line: UInt = #line
    ) -> BlobStoreError {
        BlobStoreError(code, "\(label): \(problem)", errno: errno, file: file, line: line)
    }

    /// A reply larger than the caller accepts: ``BlobStoreError/Code/tooLarge``, not a failure
    /// of the server.
    package func tooLarge(
        size: some BinaryInteger, maximum: Int, orMore: Bool = false, file: StaticString = #fileID, line: UInt = #line
    ) -> BlobStoreError {
        let what = "a reply of \(size) bytes\(orMore ? " or more" : "") is larger than the \(maximum) accepted."
        return BlobStoreError(.tooLarge, "\(label): \(what)", file: file, line: line)
    }
}
