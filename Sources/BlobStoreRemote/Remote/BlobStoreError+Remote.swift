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

    /// A reply larger than the caller accepts (``BlobStoreError/Code/tooLarge``): not a failure
    /// of the server, so ``TieredStore`` counts it as a rejected blob, without a cool-down.
    static func remoteTooLarge(
        _ server: String, size: some BinaryInteger, maximum: Int, orMore: Bool = false, file: StaticString = #fileID,
        line: UInt = #line
    ) -> BlobStoreError {
        let what = "a reply of \(size) bytes\(orMore ? " or more" : "") is larger than the \(maximum) accepted."
        return BlobStoreError(.tooLarge, "Remote \(server): \(what)", file: file, line: line)
    }
}
