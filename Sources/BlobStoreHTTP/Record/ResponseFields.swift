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
    /// The field lines (`Name: value\r\n`) of the fields served from the cache as they are
    /// stored: all but those `no-cache="…"` and `private="…"` name, `Age`, the framing fields
    /// (`Content-Length`, `Transfer-Encoding`) and the list fields each cache on the way adds
    /// to (`Via`, `Cache-Status`), which a server writes itself.
    var passedLines: [UInt8]
    /// The stored `Via` and `Cache-Status` unless omitted, each joined by `", "`.
    var via: String?
    var cacheStatus: String?

    /// The fields of `headers`.
    init(_ headers: HTTPHeaders) {
        cacheControl = CacheControl(headers["Cache-Control"])
        date = headers["Date"].flatMap(HTTPDate.parse)
        age = Freshness.ageSeconds(headers)
        let expiresField = headers["Expires"]
        hasExpires = expiresField != nil
        expires = expiresField.flatMap(HTTPDate.parse)
        lastModified = headers["Last-Modified"].flatMap(HTTPDate.parse)
        let omitted = Set(cacheControl.omittedFields)
        via = omitted.contains("via") ? nil : headers["Via"]
        cacheStatus = omitted.contains("cache-status") ? nil : headers["Cache-Status"]
        let set = ["Age", "Content-Length", "Transfer-Encoding", "Via", "Cache-Status"]
        var lines = HeadWriter()
        for field in headers
        where !HTTPHeaders.isOne(of: set, field.name) && (omitted.isEmpty || !omitted.contains(field.name.lowercased()))
        {
            lines.field(field.name, field.value)
        }
        passedLines = lines.bytes
    }
}
