import Foundation

/// The directives of `Cache-Control` header fields (RFC 9111 §5.2) that the cache acts on.
///
/// Unknown directives are ignored; a directive given twice counts once, with the first value
/// (a conflicting duplicate makes the response less cacheable only through the directives that
/// are present). A qualified `no-cache="field"` or `private="field"` is treated as the
/// unqualified directive: stricter, never wrong.
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
        var seen: Set<String> = []
        for element in Self.elements(of: value) {
            let (name, argument) = element
            guard seen.insert(name).inserted else { continue }
            switch name {
            case "max-age": maxAge = Self.seconds(argument)
            case "s-maxage": sharedMaxAge = Self.seconds(argument)
            case "stale-while-revalidate": staleWhileRevalidate = Self.seconds(argument)
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "stale-if-error": staleIfError = Self.seconds(argument)
            case "must-understand": mustUnderstand = true
            case "max-stale": maxStale = argument == nil ? Self.maximumSeconds : Self.seconds(argument)
            case "min-fresh": minFresh = Self.seconds(argument)
            case "only-if-cached": onlyIfCached = true
            default: break
            }
        }
    }

    /// `name[=argument]` elements, names lowercased, quotes removed from arguments; commas
    /// inside quotes do not split.
    static func elements(of value: String) -> [(name: String, argument: String?)] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        for character in value {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.compactMap { part in
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard let first = pieces.first else { return nil }
            let name = first.trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty else { return nil }
            let argument =
                pieces.count > 1
                ? pieces[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
                : nil
            return (name, argument)
        }
    }

    /// The largest delta-seconds value the cache uses: 2^31 (RFC 9111 §1.2.2). Any larger value,
    /// and any too large for an `Int`, reads as this one.
    public static let maximumSeconds = 2_147_483_648

    /// A delta-seconds argument: digits only, clamped to ``maximumSeconds``; anything else is
    /// `nil` (the directive is ignored).
    static func seconds(_ argument: String?) -> Int? {
        guard let argument, !argument.isEmpty, argument.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return min(Int(argument) ?? .max, maximumSeconds)
    }
}
