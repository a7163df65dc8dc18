import Foundation

/// The directives of `Cache-Control` header fields (RFC 9111 §5.2) that the cache acts on.
///
/// Unknown directives are ignored; a directive given twice counts once, with the first value
/// (a conflicting duplicate makes the response less cacheable only through the directives that
/// are present). A directive with whitespace around its `=` does not parse and is ignored. The
/// qualified `no-cache="field, …"` and `private="field, …"` name fields that a stored response
/// is served without (RFC 9111 §5.2.2.4, §5.2.2.7); the response itself may be reused.
public struct CacheControl: Sendable, Equatable {
    /// `max-age=<seconds>`.
    public var maxAge: Int?
    /// `s-maxage=<seconds>`: the freshness lifetime in a shared cache.
    public var sharedMaxAge: Int?
    /// `stale-while-revalidate=<seconds>`.
    public var staleWhileRevalidate: Int?
    /// `no-store`.
    public var noStore = false
    /// `no-cache`: every use needs a successful revalidation.
    public var noCache = false
    /// `private`: a shared cache does not store the response.
    public var isPrivate = false
    /// The fields named by `no-cache="…"` and `private="…"` (lowercased): a stored response is
    /// served without them unless it was just revalidated.
    public var omittedFields: [String] = []
    /// `public`.
    public var isPublic = false
    /// `must-revalidate`: once stale, never used without revalidation.
    public var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches.
    public var proxyRevalidate = false
    /// `stale-if-error=<seconds>` (RFC 5861 §4): how long past its freshness a response may
    /// answer when revalidating it fails or the server answers 500, 502, 503 or 504.
    public var staleIfError: Int?
    /// `must-understand` (RFC 9111 §5.2.2.3): store only if the cache knows the status code's
    /// caching rules, and then ignore `no-store`.
    public var mustUnderstand = false
    /// Request `max-stale[=<seconds>]`: the client accepts a response stale by this much;
    /// ``maximumSeconds`` when no value is given (any staleness).
    public var maxStale: Int?
    /// Request `min-fresh=<seconds>`: the client wants a response fresh for this much longer.
    public var minFresh: Int?
    /// Request `only-if-cached`: answer from the cache or with `504`, never from the server.
    public var onlyIfCached = false

    /// No directive.
    public init() {}

    /// The directives of a `Cache-Control` field value, or of several joined by commas; `nil`
    /// reads as no directive.
    public init(_ value: String?) {
        guard let value else { return }
        // The directives with a value met so far, one bit each (a set of names would be
        // allocated and hashed for every response): a repeated one is skipped, so the first counts.
        var seen: UInt32 = 0
        func first(_ directive: Valued) -> Bool {
            defer { seen |= 1 << directive.rawValue }
            return seen & (1 << directive.rawValue) == 0
        }
        Self.forEachElement(of: value) { name, argument in
            switch name {
            case "max-age": if first(.maxAge) { maxAge = Self.seconds(argument) }
            case "s-maxage": if first(.sharedMaxAge) { sharedMaxAge = Self.seconds(argument) }
            case "stale-while-revalidate":
                if first(.staleWhileRevalidate) { staleWhileRevalidate = Self.seconds(argument) }
            case "no-store": noStore = true
            case "no-cache", "private":
                if first(name == "no-cache" ? .noCache : .isPrivate) {
                    if let argument, !argument.isEmpty {
                        omittedFields += argument.split(separator: ",").map {
                            $0.trimmingOptionalWhitespace().lowercased()
                        }.filter { !$0.isEmpty }
                    } else if name == "no-cache" {
                        noCache = true
                    } else {
                        isPrivate = true
                    }
                }
            case "public": isPublic = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "stale-if-error": if first(.staleIfError) { staleIfError = Self.seconds(argument) }
            case "must-understand": mustUnderstand = true
            case "max-stale":
                if first(.maxStale) { maxStale = argument == nil ? Self.maximumSeconds : Self.seconds(argument) }
            case "min-fresh": if first(.minFresh) { minFresh = Self.seconds(argument) }
            case "only-if-cached": onlyIfCached = true
            default: break
            }
        }
    }

    /// The directives whose first occurrence counts (they carry a value, or `no-cache` and
    /// `private` name fields), by their bit in the initializer's record of those seen.
    private enum Valued: UInt32 {
        case maxAge, sharedMaxAge, staleWhileRevalidate, noCache, isPrivate, staleIfError, maxStale, minFresh
    }

    /// The directives of a targeted cache-control field such as `CDN-Cache-Control` (RFC 9213),
    /// or `nil` when it is not a valid Structured Fields dictionary (RFC 8941 §3.2), which a
    /// cache then ignores: a member whose key is not a key (`&&&`), a value of no known type, or
    /// a duration directive (`max-age`, `s-maxage`, `stale-while-revalidate`, `stale-if-error`)
    /// whose value is not an integer (`max-age="60"`). Keys are read without regard to case, as
    /// `Cache-Control`'s are.
    public init?(targeted value: String) {
        let members = Self.members(of: value)
        guard !members.isEmpty else { return nil }
        let durations: Set<String> = ["max-age", "s-maxage", "stale-while-revalidate", "stale-if-error"]
        for member in members {
            // Parameters (`;name=value`) are allowed and ignored.
            let item = member.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].lowercased()
            guard let first = key.unicodeScalars.first, first == "*" || ("a"..."z").contains(first),
                key.unicodeScalars.allSatisfy({
                    ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_-.*".unicodeScalars.contains($0)
                })
            else { return nil }
            guard parts.count == 2 else { continue }  // a bare key is boolean true
            let text = String(parts[1])
            let isInteger = text.range(of: #"^-?[0-9]{1,15}$"#, options: .regularExpression) != nil
            let isValid =
                isInteger || text.range(of: #"^-?[0-9]{1,12}\.[0-9]{1,3}$"#, options: .regularExpression) != nil
                || text.range(of: #"^"([\x20-\x21\x23-\x5B\x5D-\x7E]|\\["\\])*"$"#, options: .regularExpression) != nil
                || text.range(of: #"^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*$"#, options: .regularExpression) != nil
                || text == "?0" || text == "?1"
                || text.range(of: #"^:[A-Za-z0-9+/=]*:$"#, options: .regularExpression) != nil
            guard isValid, !durations.contains(key) || isInteger else { return nil }
        }
        self.init(value)
    }

    /// The members of a Structured Fields list or dictionary: split at commas outside strings,
    /// with the whitespace around them removed; empty when a member is empty (`a,,b`).
    private static func members(of value: String) -> [String] {
        var members: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if quoted {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                }
                current.append(character)
                continue
            }
            if character == "\"" { quoted = true }
            if character == "," {
                members.append(current.trimmingOptionalWhitespace())
                current = ""
            } else {
                current.append(character)
            }
        }
        members.append(current.trimmingOptionalWhitespace())
        return members.contains(where: \.isEmpty) ? [] : members
    }

    /// Calls `body` with each `name[=argument]` element in order, the name lowercased, quotes
    /// removed from the argument; commas inside quotes do not split. Read over the UTF-8 bytes,
    /// with no list made: it runs on every cache lookup and every forwarded response.
    static func forEachElement(of value: String, _ body: (_ name: String, _ argument: String?) -> Void) {
        var value = value
        value.withUTF8 { bytes in
            var index = 0
            let count = bytes.count
            func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            while index < count {
                // One element: up to a comma outside quotes.
                var start = index
                var quoted = false
                var equals: Int?
                while index < count {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\"") { quoted.toggle() }
                    if !quoted, byte == UInt8(ascii: ",") { break }
                    if !quoted, equals == nil, byte == UInt8(ascii: "=") { equals = index }
                    index += 1
                }
                var end = equals ?? index
                while start < end, isSpace(bytes[start]) { start += 1 }
                // `name = value` is not `name=value` (RFC 9110 §5.6.2 has no whitespace there).
                let spacedEquals =
                    equals.map { ($0 > start && isSpace(bytes[$0 - 1])) || ($0 + 1 < count && isSpace(bytes[$0 + 1])) }
                    ?? false
                while end > start, isSpace(bytes[end - 1]) { end -= 1 }
                if start < end, !spacedEquals {
                    let nameBytes = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    let name =
                        nameBytes.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
                        ? String(decoding: nameBytes.map(HTTPHeaders.lowercase), as: UTF8.self)
                        : String(decoding: nameBytes, as: UTF8.self)
                    var argument: String?
                    if let equals {
                        var argumentStart = equals + 1
                        var argumentEnd = index
                        while argumentStart < argumentEnd, isSpace(bytes[argumentStart]) { argumentStart += 1 }
                        while argumentEnd > argumentStart, isSpace(bytes[argumentEnd - 1]) { argumentEnd -= 1 }
                        while argumentStart < argumentEnd, bytes[argumentStart] == UInt8(ascii: "\"") {
                            argumentStart += 1
                        }
                        while argumentEnd > argumentStart, bytes[argumentEnd - 1] == UInt8(ascii: "\"") {
                            argumentEnd -= 1
                        }
                        argument = String(
                            decoding: UnsafeBufferPointer(rebasing: bytes[argumentStart..<argumentEnd]), as: UTF8.self)
                    }
                    body(name, argument)
                }
                index += 1  // past the comma
            }
        }
    }

    /// The largest delta-seconds value the cache uses: 2^31 (RFC 9111 §1.2.2). Any larger value,
    /// and any too large for an `Int`, reads as this one.
    public static let maximumSeconds = 2_147_483_648

    /// A delta-seconds argument: digits, clamped to ``maximumSeconds``, or digits with a decimal
    /// fraction, which is dropped (`3600.5` is 3600: a sender's sloppiness, not an attack);
    /// anything else is `nil` (the directive is ignored).
    static func seconds(_ argument: String?) -> Int? {
        guard let argument else { return nil }
        // Over the UTF-8 bytes, saturating: this runs several times on every cache lookup.
        var value = 0
        var digits = 0
        var fraction: Int?  // digits after a '.', once one is seen
        for byte in argument.utf8 {
            if byte == UInt8(ascii: "."), fraction == nil {
                fraction = 0
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            if fraction != nil {
                fraction! += 1
            } else {
                digits += 1
                value = value > maximumSeconds ? value : value * 10 + Int(byte - UInt8(ascii: "0"))
            }
        }
        guard digits > 0, fraction.map({ $0 > 0 }) ?? true else { return nil }
        return min(value, maximumSeconds)
    }
}
