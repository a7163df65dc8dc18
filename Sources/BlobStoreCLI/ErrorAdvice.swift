import BlobStore

/// What the CLI adds to a library error: the library says what went wrong and what to do in
/// the library's terms; this says how to do it from the command line, by error code.
enum ErrorAdvice {
    /// The line printed after `Error: …` for an error with `code`, or `nil`.
    static func hint(for code: BlobStoreError.Code) -> String? {
        switch code {
        case .permissionDenied, .busy:
            "Hint: choose another store with --store or $BLOBSTORE_DIR."
        case .tooLarge:
            "Hint: raise the capacity with 'blobstore config --capacity <size>'."
        case .unsafeLayout, .corrupt:
            "Hint: 'blobstore verify --repair' sets damage aside; 'blobstore journal' shows the journal."
        default:
            nil
        }
    }
}
