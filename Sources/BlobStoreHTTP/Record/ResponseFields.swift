import Foundation

/// The header fields of a stored response that its freshness, age and serving read, parsed
/// once: a stored response is asked for them at every use, and parsing its dates and directives
/// again at each cache hit was the largest part of a hit's work in the caching proxy.
///
/// A class, immutable: a ``StoredResponse`` is copied several times per cache hit, and a copy of
/// these fields is then one reference count instead of one per array and string they hold (on
/// two event loops serving the same responses, each count is a cache line moved between cores).
final class ResponseFields: Sendable, Equatable {
    /// The directives of `Cache-Control`.
    let cacheControl: CacheControl
    /// `Date`, when it is a valid HTTP date.
    let date: Date?
    /// `Age` in seconds (``Freshness/ageSeconds(_:)``), when it is a valid one.
    let age: Int?
    /// Whether there is an `Expires` field, and its date when it is a valid one (an invalid
    /// `Expires` means already expired).
    let hasExpires: Bool
    let expires: Date?
    /// `Last-Modified`, when it is a valid HTTP date.
    let lastModified: Date?
    /// The validators as they are written (``HTTPHeaders/subscript(_:)``): `ETag` and
    /// `Last-Modified`, sent in every revalidation and compared with every 304.
    let etagValue: String?
    let lastModifiedValue: String?
    /// The field lines (`Name: value\r\n`) of the fields served from the cache as they are
    /// stored: all but those `no-cache="…"` and `private="…"` name, `Age`, the framing fields
    /// (`Content-Length`, `Transfer-Encoding`) and the list fields each cache on the way adds
    /// to (`Via`, `Cache-Status`), which a server writes itself.
    let passedLines: [UInt8]
    /// Where in ``passedLines`` the `Date` line is, when there is exactly one (so that a `304`
    /// that changed the date only replaces that line).
    let dateLine: Range<Int>?
    /// The stored `Via` and `Cache-Status` unless omitted, each joined by `", "`.
    let via: String?
    let cacheStatus: String?

    /// The fields of `headers`.
    init(_ headers: HTTPHeaders) {
        cacheControl = CacheControl(headers["Cache-Control"])
        date = headers["Date"].flatMap(HTTPDate.parse)
        age = Freshness.ageSeconds(headers)
        let expiresField = headers["Expires"]
        hasExpires = expiresField != nil
        expires = expiresField.flatMap(HTTPDate.parse)
        etagValue = headers["ETag"]
        lastModifiedValue = headers["Last-Modified"]
        lastModified = lastModifiedValue.flatMap(HTTPDate.parse)
        let omitted = Set(cacheControl.omittedFields)
        via = omitted.contains("via") ? nil : headers["Via"]
        cacheStatus = omitted.contains("cache-status") ? nil : headers["Cache-Status"]
        (passedLines, dateLine) = Self.passedLines(of: headers, omitting: omitted)
    }

    /// The fields of `headers`, which differ from those `earlier` was parsed from in `Date` and
    /// `Age` only (what a `304` usually changes): what the other fields give is taken from
    /// `earlier` rather than parsed again. `dateSet` says whether `Date` was set anew, which leaves
    /// one `Date` field, after all others but `Age` (`HTTPHeaders.set` appends it); without it, the
    /// `Date` fields are `earlier`'s, in their places, so the date and the lines are `earlier`'s
    /// too. With it, the lines are `earlier`'s with the one `Date` line moved to the end, written
    /// anew; they are written whole when `earlier` had no single `Date` line.
    ///
    /// The strings taken (`ETag`, `Last-Modified`, `Via`, `Cache-Status`) are `earlier`'s: "only"
    /// is decided with `String`'s `==` (`HTTPHeaders.has`), which equates canonically equivalent
    /// Unicode, so a 304 that rewrote one of them into other bytes of the same text would leave the
    /// stored bytes here (and in the headers). Only non-ASCII values can differ so; were the
    /// comparison made byte-exact, these would have to be taken from `headers`.
    init(_ headers: HTTPHeaders, timesChangedFrom earlier: ResponseFields, dateSet: Bool) {
        cacheControl = earlier.cacheControl
        age = Freshness.ageSeconds(headers)
        hasExpires = earlier.hasExpires
        expires = earlier.expires
        lastModified = earlier.lastModified
        etagValue = earlier.etagValue
        lastModifiedValue = earlier.lastModifiedValue
        via = earlier.via
        cacheStatus = earlier.cacheStatus
        guard dateSet else {
            date = earlier.date
            (passedLines, dateLine) = (earlier.passedLines, earlier.dateLine)
            return
        }
        let dateField = headers.fields.last { HTTPHeaders.sameName($0.name, "Date") }
        date = dateField.flatMap { HTTPDate.parse($0.value) }
        if let dateField, let line = earlier.dateLine {
            var lines = HeadWriter(
                reservingCapacity: earlier.passedLines.count - line.count + dateField.name.utf8.count
                    + dateField.value.utf8.count + 4)
            lines.lines(earlier.passedLines[..<line.lowerBound])
            lines.lines(earlier.passedLines[line.upperBound...])
            let start = lines.bytes.count
            lines.field(dateField.name, dateField.value)
            (passedLines, dateLine) = (lines.bytes, start..<lines.bytes.count)
        } else {
            let omitted = cacheControl.omittedFields
            (passedLines, dateLine) = Self.passedLines(of: headers, omitting: omitted.isEmpty ? [] : Set(omitted))
        }
    }

    /// The ``passedLines`` of `headers` when the fields named `omitted` (lowercased) are left out,
    /// and the ``dateLine``.
    private static func passedLines(of headers: HTTPHeaders, omitting omitted: Set<String>) -> (
        lines: [UInt8], dateLine: Range<Int>?
    ) {
        // Room for every line at once: grown a line at a time, the bytes were copied five times.
        var lines = HeadWriter(
            reservingCapacity: headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        var (dateLine, dates) = (0..<0, 0)
        for field in headers
        where !isWrittenBySender(field.name)
            && (omitted.isEmpty || !omitted.contains(field.name.lowercased()))
        {
            let start = lines.bytes.count
            lines.field(field.name, field.value)
            if HTTPHeaders.sameName(field.name, "Date") { (dateLine, dates) = (start..<lines.bytes.count, dates + 1) }
        }
        return (lines.bytes, dates == 1 ? dateLine : nil)
    }

    /// Whether `name` is one of the fields a server serving a stored response writes itself:
    /// `Age`, `Via`, `Cache-Status`, `Content-Length`, `Transfer-Encoding`. Chosen by length
    /// first, as ``StoredResponse/isHopByHopName(_:)`` is.
    private static func isWrittenBySender(_ name: String) -> Bool {
        switch name.utf8.count {
        case 3: HTTPHeaders.sameName(name, "Age") || HTTPHeaders.sameName(name, "Via")
        case 12: HTTPHeaders.sameName(name, "Cache-Status")
        case 14: HTTPHeaders.sameName(name, "Content-Length")
        case 17: HTTPHeaders.sameName(name, "Transfer-Encoding")
        default: false
        }
    }

    static func == (left: ResponseFields, right: ResponseFields) -> Bool {
        left === right
            || (left.cacheControl == right.cacheControl && left.date == right.date && left.age == right.age
                && left.hasExpires == right.hasExpires && left.expires == right.expires
                && left.lastModified == right.lastModified && left.etagValue == right.etagValue
                && left.lastModifiedValue == right.lastModifiedValue && left.passedLines == right.passedLines
                && left.dateLine == right.dateLine
                && left.via == right.via && left.cacheStatus == right.cacheStatus)
    }
}
