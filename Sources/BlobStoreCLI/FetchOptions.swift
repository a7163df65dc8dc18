import BlobStoreHTTP

/// The options of `fetch`.
public struct FetchOptions: Equatable, Sendable {
    /// `--header 'Name: value'`, in order, split into name and value (the name checked to be a
    /// token, the value without surrounding whitespace).
    public var headers: [HTTPHeaders.Field]
    /// `--min-disk-lifetime <duration>`; `nil` keeps the library's default (5 minutes).
    public var minimumDiskLifetime: Duration?
    /// `--allow-http-errors`: write the body of a 4xx or 5xx response and exit 0, as for any
    /// other status, instead of failing (exit 69) without writing it.
    public var allowsHTTPErrors: Bool

    /// Options with `headers` and, when given, the minimum disk lifetime.
    public init(
        headers: [HTTPHeaders.Field] = [], minimumDiskLifetime: Duration? = nil, allowsHTTPErrors: Bool = false
    ) {
        self.headers = headers
        self.minimumDiskLifetime = minimumDiskLifetime
        self.allowsHTTPErrors = allowsHTTPErrors
    }
}
