import BlobStore

/// The process exit codes (docs/cli.md, "Exit codes"); the 6x–7x values follow sysexits.h.
public enum ExitCode {
    public static let success: Int32 = 0
    /// `get`, `has` or `rm` of a key the store does not hold; `blob` of a digest it does not hold
    /// (also when there is no store: an empty cache answers so).
    public static let keyNotFound: Int32 = 1
    /// `EX_USAGE`: the command line is wrong.
    public static let usage: Int32 = 64
    /// `EX_DATAERR`: stored data is damaged, or `demo` read back different bytes.
    public static let dataError: Int32 = 65
    /// `EX_NOINPUT`: a command that does not create the store found none at the path (no
    /// directory, or an empty one).
    public static let noStore: Int32 = 66
    /// `EX_UNAVAILABLE`: `fetch` got a 4xx or 5xx status (the server does not provide the
    /// resource), without `--allow-http-errors`.
    public static let httpError: Int32 = 69
    /// `EX_UNAVAILABLE` too: `remote ping` could not reach a server or node of the remote.
    public static let remoteUnreachable: Int32 = 69
    /// `EX_CANTCREAT`: the store cannot take the value (library code `tooLarge`): it is larger
    /// than the store's capacity, or a key or metadata than the format allows. Nothing was
    /// stored; the command line itself was right, so this is not a usage error.
    public static let cannotStore: Int32 = 73
    /// `EX_IOERR`: any other failure to read or write the store or a file.
    public static let ioError: Int32 = 74
    /// `EX_TEMPFAIL`: another process holds the store's lock; retry later.
    public static let temporaryFailure: Int32 = 75

    /// The exit code for an error the library threw. A missing key is not an error there (reads
    /// return `nil`), so `notFound` here means a missing file and exits 74.
    static func forError(_ code: BlobStoreError.Code) -> Int32 {
        switch code {
        case .corrupt, .digestMismatch: dataError
        case .busy: temporaryFailure
        case .invalidArgument: usage
        case .tooLarge: cannotStore
        default: ioError
        }
    }
}
