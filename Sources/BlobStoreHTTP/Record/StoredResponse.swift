import Foundation

/// What the cache keeps about a response besides its body: kept as the entry's metadata (JSON),
/// while the body is the entry's value, so identical bodies are stored once.
public struct StoredResponse: Sendable, Equatable, Codable {
    /// The request URL.
    public var url: String {
        get { storage.url }
        set { unique().url = newValue }
    }
    /// The status code.
    public var status: Int {
        get { storage.status }
        set { unique().status = newValue }
    }
    /// The header fields, without hop-by-hop fields.
    public var headers: HTTPHeaders {
        get { storage.headers }
        set {
            let storage = unique()
            storage.headers = newValue
            storage.fields = ResponseFields(newValue)
        }
    }
    /// The request's values of the headers the response's `Vary` names, or `nil` without `Vary`.
    public var vary: VaryKey? {
        get { storage.vary }
        set { unique().vary = newValue }
    }
    /// When the request was sent.
    public var requestTime: Date {
        get { storage.requestTime }
        set { unique().requestTime = newValue }
    }
    /// When the response was received.
    public var responseTime: Date {
        get { storage.responseTime }
        set { unique().responseTime = newValue }
    }
    /// The fields of ``headers`` that freshness and age read, parsed when the headers are set.
    var fields: ResponseFields { storage.fields }

    /// The values, in one reference-counted box copied on write: a response is copied several
    /// times per cache hit (looked up, used, answered), and a copy is then one reference count
    /// rather than one per string and array it holds.
    private var storage: Storage

    /// A record.
    public init(
        url: String, status: Int, headers: HTTPHeaders, vary: VaryKey?, requestTime: Date, responseTime: Date
    ) {
        self.init(
            exactly: url, status: status, headers: Self.endToEnd(headers), vary: vary, requestTime: requestTime,
            responseTime: responseTime)
    }

    /// A record with `headers` that are end to end already (``endToEnd(_:)``), kept as they are.
    package init(
        url: String, status: Int, endToEndHeaders headers: HTTPHeaders, requestTime: Date, responseTime: Date
    ) {
        self.init(
            exactly: url, status: status, headers: headers, vary: nil, requestTime: requestTime,
            responseTime: responseTime)
    }

    /// A record with `headers` as they are (decoded ones: ``RecordJSONReader``).
    init(
        exactly url: String, status: Int, headers: HTTPHeaders, vary: VaryKey?, requestTime: Date, responseTime: Date
    ) {
        storage = Storage(
            url: url, status: status, headers: headers, vary: vary, requestTime: requestTime,
            responseTime: responseTime, fields: ResponseFields(headers))
    }

    private enum CodingKeys: String, CodingKey {
        case url, status, headers, vary, requestTime, responseTime
    }

    /// The record as it was encoded, its headers as they were stored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            exactly: try container.decode(String.self, forKey: .url),
            status: try container.decode(Int.self, forKey: .status),
            headers: try container.decode(HTTPHeaders.self, forKey: .headers),
            vary: try container.decodeIfPresent(VaryKey.self, forKey: .vary),
            requestTime: try container.decode(Date.self, forKey: .requestTime),
            responseTime: try container.decode(Date.self, forKey: .responseTime))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(status, forKey: .status)
        try container.encode(headers, forKey: .headers)
        try container.encodeIfPresent(vary, forKey: .vary)
        try container.encode(requestTime, forKey: .requestTime)
        try container.encode(responseTime, forKey: .responseTime)
    }

    public static func == (left: StoredResponse, right: StoredResponse) -> Bool {
        left.storage === right.storage
            || (left.url == right.url && left.status == right.status && left.headers == right.headers
                && left.vary == right.vary && left.requestTime == right.requestTime
                && left.responseTime == right.responseTime)
    }

    /// The storage, copied first unless this value is its only holder.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// `@unchecked Sendable`: a storage is changed only through ``unique()``, by the one value
    /// that holds it; shared storages are never changed.
    private final class Storage: @unchecked Sendable {
        var url: String
        var status: Int
        var headers: HTTPHeaders
        var vary: VaryKey?
        var requestTime: Date
        var responseTime: Date
        var fields: ResponseFields

        init(
            url: String, status: Int, headers: HTTPHeaders, vary: VaryKey?, requestTime: Date, responseTime: Date,
            fields: ResponseFields
        ) {
            self.url = url
            self.status = status
            self.headers = headers
            self.vary = vary
            self.requestTime = requestTime
            self.responseTime = responseTime
            self.fields = fields
        }

        func copy() -> Storage {
            Storage(
                url: url, status: status, headers: headers, vary: vary, requestTime: requestTime,
                responseTime: responseTime, fields: fields)
        }
    }

    /// `headers` without the hop-by-hop fields (RFC 9110 §7.6.1), those `Connection` names, and the
    /// proxy authentication fields, which belong to one hop too: what is stored, and what the
    /// caching proxy passes on in either direction.
    package static func endToEnd(_ headers: HTTPHeaders) -> HTTPHeaders {
        let options = connectionOptions(headers)
        func isHopByHop(_ field: HTTPHeaders.Field) -> Bool { Self.isHopByHop(field, options: options) }
        // Most responses have none: they are returned as they are, their storage shared.
        guard let first = headers.fields.firstIndex(where: isHopByHop) else { return headers }
        var kept: [HTTPHeaders.Field] = []
        kept.reserveCapacity(headers.fields.count - 1)
        kept.append(contentsOf: headers.fields[..<first])
        for field in headers.fields[(first + 1)...] where !isHopByHop(field) { kept.append(field) }
        return HTTPHeaders(kept)
    }

    /// The names the `Connection` fields of `headers` give, which belong to one hop.
    package static func connectionOptions(_ headers: HTTPHeaders) -> [String] {
        // `Connection: keep-alive`, the usual one, names only a field that goes anyway.
        namesOnlyKeepAlive(headers) ? [] : headers.list("Connection")
    }

    /// Whether `field` belongs to one hop: it is one of ``isHopByHopName(_:)`` or one of `options`
    /// (``connectionOptions(_:)``).
    package static func isHopByHop(_ field: HTTPHeaders.Field, options: [String]) -> Bool {
        isHopByHopName(field.name) || (!options.isEmpty && HTTPHeaders.isOne(of: options, field.name))
    }

    /// Whether every `Connection` field of `headers` (if any) is `keep-alive` alone, in any case:
    /// such a field names no field beyond ``isHopByHopName(_:)``, and its value need not be split.
    private static func namesOnlyKeepAlive(_ headers: HTTPHeaders) -> Bool {
        headers.fields.allSatisfy { field in
            !HTTPHeaders.sameName(field.name, "Connection") || HTTPHeaders.sameName(field.value, "keep-alive")
        }
    }

    /// Whether `name` is one of the fields that belong to one hop whatever `Connection` says:
    /// `Connection`, `Keep-Alive`, `Proxy-Connection`, `TE`, `Trailer`, `Transfer-Encoding`,
    /// `Upgrade`, `Proxy-Authorization` and `Proxy-Authenticate`. Chosen by length first: every
    /// field of every forwarded message is asked, and most names have no such length.
    static func isHopByHopName(_ name: String) -> Bool {
        switch name.utf8.count {
        case 2: HTTPHeaders.sameName(name, "TE")
        case 7: HTTPHeaders.sameName(name, "Trailer") || HTTPHeaders.sameName(name, "Upgrade")
        case 10: HTTPHeaders.sameName(name, "Connection") || HTTPHeaders.sameName(name, "Keep-Alive")
        case 16: HTTPHeaders.sameName(name, "Proxy-Connection")
        case 17: HTTPHeaders.sameName(name, "Transfer-Encoding")
        case 18: HTTPHeaders.sameName(name, "Proxy-Authenticate")
        case 19: HTTPHeaders.sameName(name, "Proxy-Authorization")
        default: false
        }
    }

    /// The freshness lifetime under `policy`.
    public func freshness(_ policy: HTTPCachePolicy) -> Freshness {
        freshness(policy, directives: directives(policy))
    }

    /// ``freshness(_:)`` with the response's `directives` under `policy` found before.
    private func freshness(_ policy: HTTPCachePolicy, directives: CacheControl) -> Freshness {
        Freshness.lifetime(
            status: status, fields: fields, directives: directives, responseTime: responseTime, policy: policy)
    }

    /// The current age at `now`.
    public func age(at now: Date) -> TimeInterval {
        Freshness.currentAge(fields: fields, requestTime: requestTime, responseTime: responseTime, now: now)
    }

    /// The response's cache directives under `policy` (`HTTPCachePolicy.responseDirectives(_:)`).
    func directives(_ policy: HTTPCachePolicy) -> CacheControl {
        policy.responseDirectives(headers, fields.cacheControl)
    }

    /// Whether the response carries a validator for a conditional request.
    public var hasValidator: Bool { headers.hasValidator }

    /// How the response may be used at `now` for a request with `requestHeaders` (RFC 9111 §4,
    /// §5.2.1): fresh when its lifetime exceeds its age by the request's `min-fresh` and its age is
    /// within the request's `max-age`; stale but accepted within the request's `max-stale` (never
    /// for `must-revalidate`, or in a shared cache `proxy-revalidate` and `s-maxage`); within its
    /// `stale-while-revalidate` window; else revalidated when it has a validator. `no-cache` on
    /// either side, and `Pragma: no-cache` on a request without `Cache-Control`, always revalidate.
    public func use(at now: Date, requestHeaders: HTTPHeaders, policy: HTTPCachePolicy) -> ResponseUse {
        let response = directives(policy)
        let request = CacheControl(requestHeaders["Cache-Control"])
        let pragmaNoCache =
            !requestHeaders.contains("Cache-Control")
            && requestHeaders.list("Pragma").contains { $0.lowercased() == "no-cache" }
        let lifetime = freshness(policy, directives: response).lifetime
        let age = age(at: now)
        let mustAsk =
            response.noCache || request.noCache || pragmaNoCache
            || request.maxAge.map { age > TimeInterval($0) } == true
        if !mustAsk, lifetime - TimeInterval(request.minFresh ?? 0) > age { return .fresh }
        if !mustAsk, !mustRevalidate(policy), let maxStale = request.maxStale, request.minFresh == nil,
            age - lifetime <= TimeInterval(maxStale)
        {
            return .staleAccepted
        }
        if !mustAsk, !mustRevalidate(policy), policy.servesStaleWhileRevalidating,
            let window = response.staleWhileRevalidate, age < lifetime + TimeInterval(window)
        {
            return .staleWhileRevalidate
        }
        return hasValidator ? .revalidate : .unusable
    }

    /// Whether the response may answer at `now` although revalidating it failed (the server is
    /// unreachable, or answered 500, 502, 503 or 504): within the response's or the request's
    /// `stale-if-error` window (RFC 5861 §4), and never when it must be revalidated once stale.
    public func mayAnswerOnError(at now: Date, requestHeaders: HTTPHeaders, policy: HTTPCachePolicy) -> Bool {
        guard !mustRevalidate(policy) else { return false }
        let response = directives(policy)
        let request = CacheControl(requestHeaders["Cache-Control"])
        guard let window = [response.staleIfError, request.staleIfError].compactMap({ $0 }).max() else { return false }
        return age(at: now) <= freshness(policy).lifetime + TimeInterval(window)
    }

    /// Whether the response may answer, stale, when the origin cannot be reached at all (RFC 9111
    /// §4.2.4: a disconnected cache may serve stale responses): unless it must be revalidated
    /// once stale or says `no-cache`, and the request does not say `no-cache` or `max-age`.
    public func mayAnswerDisconnected(requestHeaders: HTTPHeaders, policy: HTTPCachePolicy) -> Bool {
        let request = CacheControl(requestHeaders["Cache-Control"])
        return !mustRevalidate(policy) && !directives(policy).noCache && !request.noCache
            && request.maxAge == nil
    }

    /// Whether the response may never be served stale without revalidation: `must-revalidate`,
    /// and in a shared cache `proxy-revalidate` or `s-maxage` (RFC 9111 §5.2.2.2, §5.2.2.8,
    /// §5.2.2.10).
    func mustRevalidate(_ policy: HTTPCachePolicy) -> Bool {
        let response = directives(policy)
        return response.mustRevalidate
            || (policy.isShared && (response.proxyRevalidate || response.sharedMaxAge != nil))
    }

    /// Whether a `304 Not Modified` with `notModified` headers is about this response
    /// (RFC 9111 §4.3.4): it carries no `ETag`, or the stored one.
    public func isValidated(by notModified: HTTPHeaders) -> Bool {
        guard let etag = notModified["ETag"] else { return true }
        return etag == self.etag
    }

    /// The headers to keep after a `304 Not Modified` carrying `notModified` (RFC 9111 §3.2,
    /// §4.3.4), received at `responseTime`: each field the 304 has replaces the stored fields of
    /// that name, except hop-by-hop fields and those that describe the stored body
    /// (`Content-Length`, `Content-Encoding`, `Content-Range`). The stored `Age` is dropped when
    /// the 304 has none, and `Date` is the 304's or `responseTime`, so the age restarts.
    ///
    /// A field whose value the 304 repeats is left where it is.
    public func updatingHeaders(with notModified: HTTPHeaders, receivedAt responseTime: Date) -> HTTPHeaders {
        update(by: notModified, receivedAt: responseTime).headers
    }

    /// What a `304` with `notModified` fields changes: the ``updatingHeaders(with:receivedAt:)``,
    /// whether they differ from the stored ones in `Date` and `Age` only (`timesOnly`), and whether
    /// `Date` was set anew (`dateSet`), which, when `timesOnly`, puts its one field after all
    /// others but `Age` (a field set after it would follow it, but then `timesOnly` is false).
    ///
    /// A field is set only when its value differs, and setting a name other than `Date` or `Age`
    /// changes the fields of that name, so `timesOnly` means every other field is the stored one,
    /// in its place.
    private func update(by notModified: HTTPHeaders, receivedAt responseTime: Date) -> (
        headers: HTTPHeaders, timesOnly: Bool, dateSet: Bool
    ) {
        var updated = headers
        var (timesOnly, dateSet) = (true, false)
        let options = Self.connectionOptions(notModified)
        let fields = notModified.fields
        for index in fields.indices {
            let name = fields[index].name
            func named(_ field: HTTPHeaders.Field) -> Bool { HTTPHeaders.sameName(field.name, name) }
            // Each end-to-end name once, with its values joined, but those that describe the
            // stored body.
            guard !Self.isHopByHop(fields[index], options: options), !Self.isBodyField(name),
                !fields[..<index].contains(where: named)
            else { continue }
            let value = fields[(index + 1)...].contains(where: named) ? notModified[name]! : fields[index].value
            guard !updated.has(name, value) else { continue }
            updated.set(name, value)
            if HTTPHeaders.sameName(name, "Date") {
                dateSet = true
            } else if !HTTPHeaders.sameName(name, "Age") {
                timesOnly = false
            }
        }
        if !notModified.contains("Age") { updated.set("Age", nil) }
        if !notModified.contains("Date") {
            updated.set("Date", HTTPDate.format(responseTime))
            dateSet = true
        }
        return (updated, timesOnly, dateSet)
    }

    /// Whether `name` is one of the fields that describe a stored body, which a `304` does not
    /// replace: `Content-Length`, `Content-Encoding`, `Content-Range`, `Transfer-Encoding`. Chosen
    /// by length first, as ``isHopByHopName(_:)`` is.
    private static func isBodyField(_ name: String) -> Bool {
        switch name.utf8.count {
        case 13: HTTPHeaders.sameName(name, "Content-Range")
        case 14: HTTPHeaders.sameName(name, "Content-Length")
        case 16: HTTPHeaders.sameName(name, "Content-Encoding")
        case 17: HTTPHeaders.sameName(name, "Transfer-Encoding")
        default: false
        }
    }

    /// This response refreshed by a `304 Not Modified` with `notModified` fields (RFC 9111
    /// §4.3.4): its ``updatingHeaders(with:receivedAt:)``, sent at `requestTime` and received at
    /// `responseTime`; and whether the 304 changed no field but `Date` and `Age`
    /// (`changedTimesOnly`, for ``refreshLeavesUseUnchanged(changedTimesOnly:policy:)``). When it
    /// changed only those, what the other fields give is not parsed again.
    package func refreshed(byNotModified notModified: HTTPHeaders, requestTime: Date, responseTime: Date)
        -> (response: StoredResponse, changedTimesOnly: Bool)
    {
        let (headers, timesOnly, dateSet) = update(by: notModified, receivedAt: responseTime)
        var refreshed = self
        let storage = refreshed.unique()
        storage.fields =
            timesOnly ? ResponseFields(headers, timesChangedFrom: fields, dateSet: dateSet) : ResponseFields(headers)
        storage.headers = headers
        storage.requestTime = requestTime
        storage.responseTime = responseTime
        return (refreshed, timesOnly)
    }

    /// Whether this response, refreshed by a `304` (``refreshed(byNotModified:requestTime:responseTime:)``),
    /// may be left unwritten, the stored record kept as it is: this response can never be used
    /// without a revalidation (`no-cache`, or no freshness lifetime with `must-revalidate`), and
    /// the 304 changed no field but `Date` and `Age` (`changedTimesOnly`). What a later use
    /// decides is then the same (a revalidation), except that the older times make the response
    /// look older: a `stale-if-error` window closes sooner, never later. The answer to the request
    /// that revalidated is the refreshed response, so the client sees the new `Date` and `Age`.
    /// What it saves is a store write (a journal record) per revalidation of an always-revalidated
    /// response.
    package func refreshLeavesUseUnchanged(changedTimesOnly: Bool, policy: HTTPCachePolicy) -> Bool {
        guard changedTimesOnly else { return false }
        let response = directives(policy)
        return response.noCache || (mustRevalidate(policy) && freshness(policy, directives: response).lifetime <= 0)
    }

    /// The stored headers with `Age` set to the current age at `now` (RFC 9111 §5.1), as served
    /// without a revalidation, so without the fields `no-cache="…"` and `private="…"` name:
    /// whole seconds, at most ``CacheControl/maximumSeconds`` (an absurd `Date` or `Age` from the
    /// server never traps the conversion).
    public func servedHeaders(at now: Date) -> HTTPHeaders {
        var served = headers
        for name in omittedFields { served.set(name, nil) }
        served.set("Age", String(servedAge(at: now)))
        return served
    }

    /// The `Age` that ``servedHeaders(at:)`` sets.
    package func servedAge(at now: Date) -> Int {
        Int(min(max(0, age(at: now)), TimeInterval(CacheControl.maximumSeconds)).rounded(.down))
    }

    /// The fields that ``servedHeaders(at:)`` leaves out (lowercased): those `no-cache="…"` and
    /// `private="…"` name.
    package var omittedFields: [String] { fields.cacheControl.omittedFields }

    /// The field lines of ``servedHeaders(at:)`` that pass as stored, in order: all but `Age`,
    /// `Content-Length`, `Transfer-Encoding`, `Via` and `Cache-Status`, which a server serving
    /// the response sets (``storedVia`` and ``storedCacheStatus`` are what it adds to).
    package var passedFieldLines: [UInt8] { fields.passedLines }

    /// The stored `ETag` (``HTTPHeaders/subscript(_:)``), read when the response was decoded.
    package var etag: String? { fields.etagValue }

    /// The stored `Last-Modified` as written (``HTTPHeaders/subscript(_:)``), read when the
    /// response was decoded.
    package var lastModifiedValue: String? { fields.lastModifiedValue }

    /// The served `Via`, joined by `", "`.
    package var storedVia: String? { fields.via }

    /// The served `Cache-Status`, joined by `", "`.
    package var storedCacheStatus: String? { fields.cacheStatus }
}
