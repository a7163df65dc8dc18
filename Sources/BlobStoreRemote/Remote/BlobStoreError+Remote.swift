import BlobStore

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
        BlobStoreError(.remote, "Remote \(server): \(problem)", errno: errno, file: file, line: line)
    }
}
