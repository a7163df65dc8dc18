/// The options of `fetch`.
public struct FetchOptions: Equatable, Sendable {
    /// `--header 'Name: value'`, in order, as given (checked to have a token name and a colon).
    public var headers: [String]
    /// `--min-disk-lifetime <duration>`; `nil` keeps the library's default (5 minutes).
    public var minimumDiskLifetime: Duration?

    /// Options with `headers` and, when given, the minimum disk lifetime.
    public init(headers: [String] = [], minimumDiskLifetime: Duration? = nil) {
        self.headers = headers
        self.minimumDiskLifetime = minimumDiskLifetime
    }
}
