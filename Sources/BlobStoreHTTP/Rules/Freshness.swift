import Foundation

/// Freshness lifetime and age of a stored response (RFC 9111 §4.2). Pure: the times are
/// arguments.
public struct Freshness: Sendable, Equatable {
    /// How long the response is fresh after it was generated, in seconds.
    public var lifetime: TimeInterval
    /// Whether ``lifetime`` was guessed from `Last-Modified` (§4.2.2) rather than given.
    public var isHeuristic: Bool

    /// A lifetime.
    public init(lifetime: TimeInterval, isHeuristic: Bool) {
        self.lifetime = lifetime
        self.isHeuristic = isHeuristic
    }

    /// Status codes whose responses may be given a heuristic lifetime (RFC 9110 §15.1).
    public static let heuristicallyCacheableStatuses: Set<Int> = [
        200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// The freshness lifetime of a response (§4.2.1): `s-maxage` in a shared cache, then
    /// `max-age`, then `Expires` minus `Date` (an invalid `Expires` means already stale), then
    /// a heuristic from `Last-Modified` for a status that allows one or a `public` response
    /// (§4.2.2); else zero.
    ///
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - headers: The response's header fields.
    ///   - responseTime: When the response was received, standing in for a missing `Date`.
    ///   - policy: Whether the cache is shared, and the heuristic's fraction and bound.
    public static func lifetime(
        status: Int, headers: HTTPHeaders, responseTime: Date, policy: HTTPCachePolicy
    ) -> Freshness {
        let fields = ResponseFields(headers)
        return lifetime(
            status: status, fields: fields, directives: policy.responseDirectives(headers, fields.cacheControl),
            responseTime: responseTime, policy: policy)
    }

    /// ``lifetime(status:headers:responseTime:policy:)`` from fields parsed before, with the
    /// response's `directives` under `policy`.
    static func lifetime(
        status: Int, fields: ResponseFields, directives control: CacheControl, responseTime: Date,
        policy: HTTPCachePolicy
    ) -> Freshness {
        if policy.isShared, let shared = control.sharedMaxAge {
            return Freshness(lifetime: TimeInterval(shared), isHeuristic: false)
        }
        if let maxAge = control.maxAge {
            return Freshness(lifetime: TimeInterval(maxAge), isHeuristic: false)
        }
        let date = fields.date ?? responseTime
        if fields.hasExpires {
            guard let expiry = fields.expires else { return Freshness(lifetime: 0, isHeuristic: false) }
            return Freshness(lifetime: max(0, expiry.timeIntervalSince(date)), isHeuristic: false)
        }
        if heuristicallyCacheableStatuses.contains(status) || control.isPublic, let lastModified = fields.lastModified {
            let guess = max(0, date.timeIntervalSince(lastModified)) * policy.heuristicFraction
            return Freshness(lifetime: min(guess, policy.maximumHeuristicLifetime), isHeuristic: true)
        }
        return Freshness(lifetime: 0, isHeuristic: false)
    }

    /// The current age of a response (§4.2.3):
    ///
    /// ```
    /// apparent_age = max(0, response_time - date_value)
    /// corrected_age_value = age_value + (response_time - request_time)
    /// corrected_initial_age = max(apparent_age, corrected_age_value)
    /// current_age = corrected_initial_age + (now - response_time)
    /// ```
    ///
    /// - Parameters:
    ///   - headers: The response's header fields (`Date`, `Age`).
    ///   - requestTime: When the request that produced it was sent.
    ///   - responseTime: When it was received.
    ///   - now: The time of the question.
    public static func currentAge(
        headers: HTTPHeaders, requestTime: Date, responseTime: Date, now: Date
    ) -> TimeInterval {
        currentAge(fields: ResponseFields(headers), requestTime: requestTime, responseTime: responseTime, now: now)
    }

    /// ``currentAge(headers:requestTime:responseTime:now:)`` from fields parsed before.
    static func currentAge(fields: ResponseFields, requestTime: Date, responseTime: Date, now: Date) -> TimeInterval {
        let date = fields.date ?? responseTime
        let ageValue = TimeInterval(fields.age ?? 0)
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let correctedAgeValue = ageValue + max(0, responseTime.timeIntervalSince(requestTime))
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        return correctedInitialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// The `Age` of a response (RFC 9111 §5.1): the first value of the first `Age` field line,
    /// without parameters (`7200;foo=bar` is 7200); `nil` when there is none or it is not a
    /// non-negative integer (`-1`, `1.5`, `old`), which is then ignored.
    static func ageSeconds(_ headers: HTTPHeaders) -> Int? {
        guard let line = headers.fields.first(where: { HTTPHeaders.sameName($0.name, "Age") })?.value,
            let first = line.split(separator: ",", omittingEmptySubsequences: false).first,
            let value = first.split(separator: ";", omittingEmptySubsequences: false).first
        else { return nil }
        let digits = value.trimmingOptionalWhitespace()
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return min(Int(digits) ?? .max, CacheControl.maximumSeconds)
    }
}
