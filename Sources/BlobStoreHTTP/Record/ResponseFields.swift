import Foundation

/// The header fields of a stored response that its freshness, age and serving read, parsed
/// once: a stored response is asked for them at every use, and parsing its dates and directives
/// again at each cache hit was the largest part of a hit's work in the caching proxy.
struct ResponseFields: Sendable, Equatable {
    /// The directives of `Cache-Control`.
    var cacheControl: CacheControl
    /// `Date`, when it is a valid HTTP date.
    var date: Date?
    /// `Age` in seconds (``Freshness/ageSeconds(_:)``), when it is a valid one.
    var age: Int?
    /// Whether there is an `Expires` field, and its date when it is a valid one (an invalid
    /// `Expires` means already expired).
    var hasExpires: Bool
    var expires: Date?
    /// `Last-Modified`, when it is a valid HTTP date.
    var lastModified: Date?

    /// The fields of `headers`.
    init(_ headers: HTTPHeaders) {
        cacheControl = CacheControl(headers["Cache-Control"])
        date = headers["Date"].flatMap(HTTPDate.parse)
        age = Freshness.ageSeconds(headers)
        let expiresField = headers["Expires"]
        hasExpires = expiresField != nil
        expires = expiresField.flatMap(HTTPDate.parse)
        lastModified = headers["Last-Modified"].flatMap(HTTPDate.parse)
    }
}
