import BlobStoreHTTP

/// The options of `fetch`.
public struct FetchOptions: Equatable, Sendable {
    /// `--header 'Name: value'`, in order, split into name and value (the name checked to be a
    /// token, the value without surrounding whitespace).
    public var headers: [HTTPHeaders.Field]
    /// `--min-disk-lifetime <duration>`; `nil` keeps the library's default (5 minutes).
    public var minimumDiskLifetime: Duration?

    /// Options with `headers` and, when given, the minimum disk lifetime.
    public init(headers: [HTTPHeaders.Field] = [], minimumDiskLifetime: Duration? = nil) {
        self.headers = headers
        self.minimumDiskLifetime = minimumDiskLifetime
    }
}
