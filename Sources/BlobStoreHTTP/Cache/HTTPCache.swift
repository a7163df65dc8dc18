import BlobStore
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP response cache (RFC 9111) over any `BlobStorage` (a `CachedStore`, a `BlobStore`, the
/// tiered store of `BlobStoreRemote`, a test double): each response's status, headers and times
/// are the entry's metadata and its body the entry's value, so identical bodies behind different
/// URLs are stored once.
///
/// ``data(for:)`` answers a request from the cache when a stored response is fresh, revalidates
/// a stale one with `If-None-Match` / `If-Modified-Since` (a `304` refreshes the stored headers
/// and keeps the body), and otherwise fetches it and stores what may be stored. Responses fresh
/// for less than ``HTTPCachePolicy/minimumDiskLifetime`` stay in the memory tier only. For a
/// stock `URLSession`, register ``BlobStoreURLProtocol``. docs/http.md explains every rule.
///
/// ```swift
/// let disk = try BlobStore(at: "/var/cache/myapp/http")
/// let cache = HTTPCache(store: CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 32 << 20)))
/// let result = try await cache.data(for: URLRequest(url: URL(string: "https://example.com/a")!))
/// print(result.outcome)  // "miss", then "fresh hit" while the response is fresh
/// ```
public final class HTTPCache: Sendable {
    /// Where the responses are kept.
    public let store: any BlobStorage
    /// ``store``, when it can hand a large body back opened and not yet verified.
    let opener: (any EntryOpener)?
    /// The cache's choices: shared or private, minimum disk lifetime, heuristics.
    public let policy: HTTPCachePolicy
    /// The session that sends ``data(for:)``'s requests to servers: ephemeral, with no
    /// `URLCache` and no protocol of this library, so a request never comes back to the cache.
    let session: URLSession
    /// What sends ``download(for:to:)``'s requests: the package's own HTTP/1.1 client, which
    /// writes a body to its file as it arrives and reads the socket no faster than the file is
    /// written, so a body's memory is one receive buffer whatever its size.
    let downloader: FileDownloader
    /// The entries being revalidated in the background, so that a burst of stale hits sends
    /// one conditional request.
    let revalidating = Mutex<Set<StoreKey>>([])
    /// The records decoded lately, so that a hot URL's JSON is decoded once.
    let decoded = DecodedRecords()

    /// A cache keeping responses in `store` under `policy`.
    ///
    /// - Parameters:
    ///   - store: Where the responses are kept. Responses fresh for less than the policy's
    ///     minimum disk lifetime are put with `StoragePlacement.memoryOnly`: a storage without a
    ///     memory tier does not keep them.
    ///   - policy: Shared or private, minimum disk lifetime and heuristics.
    ///   - sessionConfiguration: The configuration for ``data(for:)``'s requests to servers
    ///     (timeouts, proxies). The cache uses a copy without `urlCache` and without
    ///     ``BlobStoreURLProtocol``; the caller's configuration is left as it is. Default:
    ///     ephemeral. ``download(for:to:)`` takes its `timeoutIntervalForRequest` (the longest wait
    ///     for the server) and its `httpAdditionalHeaders`.
    public init(
        store: any BlobStorage, policy: HTTPCachePolicy = HTTPCachePolicy(),
        sessionConfiguration: URLSessionConfiguration = .ephemeral
    ) {
        self.store = store
        self.opener = store as? any EntryOpener
        self.policy = policy
        guard let configuration = sessionConfiguration.copy() as? URLSessionConfiguration else {
            preconditionFailure("URLSessionConfiguration.copy() returns a URLSessionConfiguration")
        }
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter {
            $0 != BlobStoreURLProtocol.self
        }
        self.session = URLSession(configuration: configuration)
        let additional = (configuration.httpAdditionalHeaders ?? [:]).compactMap { name, value in
            (name as? String).map { (name: $0, value: "\(value)") }
        }
        let seconds: Double = configuration.timeoutIntervalForRequest
        let milliseconds = seconds.isFinite && seconds > 0 ? min(seconds * 1000, 1e12) : 60_000
        downloader = FileDownloader(
            timeout: .milliseconds(Int64(milliseconds)),
            additionalHeaders: additional.sorted { $0.name < $1.name })
    }

    /// Lets the requests under way finish, then releases the session.
    deinit {
        session.finishTasksAndInvalidate()
    }

    // MARK: - Keys

    /// The key of the entry for `url`: `http:` and the URL without its fragment.
    public static func key(for url: URL) -> StoreKey {
        // Most URLs have no fragment and no base: their text is the key (no re-parse).
        if url.baseURL == nil, url.fragment == nil { return StoreKey("http:" + url.absoluteString) }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.fragment = nil
        return StoreKey("http:" + (components?.string ?? url.absoluteString))
    }

    /// The key of the variant of `url` selected by `vary`.
    static func variantKey(for url: URL, _ vary: VaryKey) -> StoreKey {
        StoreKey(key(for: url).string + "\nvary\n" + vary.suffix)
    }

    // MARK: - Storage

    /// The stored response for `url` that matches `requestHeaders` (its variant, when the
    /// response has `Vary`), with its body; `nil` when there is none.
    ///
    /// - Throws: `BlobStoreError` from the store.
    public func storedResponse(for url: URL, requestHeaders: HTTPHeaders) throws -> (
        response: StoredResponse, body: Data
    )? {
        try storedResponse(for: url, requestHeaders: requestHeaders) { key in
            try store.entry(for: key).map { ($0.info, $0.value) }
        }
    }

    /// ``storedResponse(for:requestHeaders:)`` with each entry read by `read` (into memory, or
    /// into a file), which returns the entry's information and its value.
    ///
    /// `key` is ``key(for:)`` of `url`, when the caller has it already; `records` remembers the
    /// records decoded (the cache's own memo, or one of the caller's: the caching proxy gives each
    /// event loop its own, so that the loops do not share its lock).
    package func storedResponse<Body>(
        for url: URL, key: StoreKey? = nil, requestHeaders: HTTPHeaders, records: DecodedRecords? = nil,
        read: (StoreKey) throws -> (EntryInfo, Body)?
    ) throws -> (response: StoredResponse, body: Body)? {
        let decoded = records ?? decoded
        return try storedResponse(for: url, key: key, requestHeaders: requestHeaders) { key in
            guard let (info, body) = try read(key), let record = decoded.record(in: info.metadata, under: key) else {
                return nil
            }
            return (record, body)
        }
    }

    /// The stored response for `url` matching `requestHeaders`, each entry read by `read` with its
    /// record decoded: the entry under `url`'s key, then, when that names the request fields the
    /// response varies on, the entry of the variant those fields select.
    private func storedResponse<Body>(
        for url: URL, key: StoreKey?, requestHeaders: HTTPHeaders,
        read: (StoreKey) throws -> (CacheRecord, Body)?
    ) throws -> (response: StoredResponse, body: Body)? {
        guard let (record, value) = try read(key ?? Self.key(for: url)) else { return nil }
        if let names = record.variants {
            let vary = VaryKey(names: names, request: requestHeaders)
            guard let (variant, variantValue) = try read(Self.variantKey(for: url, vary)),
                let response = variant.response, response.vary == vary
            else { return nil }
            return (response, variantValue)
        }
        guard let response = record.response else { return nil }
        return (response, value)
    }

    /// ``storedResponse(for:key:requestHeaders:read:)`` with each entry read by
    /// `BlobStorage.entry(for:readingUpTo:)`: a value up to `maxBytes` into memory, a larger one
    /// opened. Not generic, so that a caller in another module (the caching proxy, at every
    /// request) runs it specialized rather than through generic metadata found at run time.
    package func storedResponse(
        for url: URL, key: StoreKey? = nil, requestHeaders: HTTPHeaders, records: DecodedRecords? = nil,
        readingUpTo maxBytes: Int
    ) throws -> (response: StoredResponse, body: EntryRead)? {
        try storedResponse(for: url, key: key, requestHeaders: requestHeaders, records: records) { key in
            try store.entry(for: key, readingUpTo: maxBytes).map { ($0.info, $0) }
        }
    }

    /// ``storedResponse(for:key:requestHeaders:records:readingUpTo:)`` for a reader that verifies
    /// a large body where it chooses (an event loop has another thread hash it): a body stored
    /// whole in a file of its own comes back opened, its verification still to do
    /// (`EntryOpener`: a `BlobStore` or a `CachedStore`); any other store reads as
    /// ``storedResponse(for:key:requestHeaders:records:readingUpTo:)``.
    package func storedResponse(
        for url: URL, key: StoreKey? = nil, requestHeaders: HTTPHeaders, records: DecodedRecords? = nil,
        openingUpTo maxBytes: Int
    ) throws -> (response: StoredResponse, body: EntryOpening)? {
        guard let opener else {
            return try storedResponse(for: url, key: key, requestHeaders: requestHeaders, records: records) { key in
                try store.entry(for: key, readingUpTo: maxBytes).map { ($0.info, EntryOpening.read($0)) }
            }
        }
        let decoded = records ?? decoded
        return try storedResponse(for: url, key: key, requestHeaders: requestHeaders) { key in
            // Nothing decoded: the metadata is no record this version reads.
            guard
                let (opening, known) = try opener.entryOpening(
                    for: key, readingUpTo: maxBytes, decoding: { decoded.decoded($0, under: key) }),
                let known
            else { return nil }
            // What another reader of the same store kept is no record: decoded here.
            guard
                let record = (known as? DecodedRecord)?.record ?? decoded.record(in: opening.info.metadata, under: key)
            else { return nil }
            return (record, opening)
        }
    }

    /// Stores `response` with `body` for a request with `requestHeaders` if RFC 9111 allows it,
    /// in memory only when its lifetime is below ``HTTPCachePolicy/minimumDiskLifetime``.
    ///
    /// - Returns: Where it was stored, or why not (a body larger than the store's capacity is not
    ///   stored).
    /// - Throws: `BlobStoreError` from the store, except `tooLarge`.
    @discardableResult
    public func store(_ response: StoredResponse, body: Data, method: String = "GET", requestHeaders: HTTPHeaders)
        throws -> Storability
    {
        try store(response, method: method, requestHeaders: requestHeaders) { key, metadata, expires, placement in
            try self.store.put(body, for: key, metadata: metadata, expires: expires, placement: placement)
        }
    }

    /// How a body is put under a key: `(key, metadata, expires, placement)`.
    package typealias BodyPut = @Sendable (StoreKey, Data, Date?, StoragePlacement) throws -> Void

    /// ``store(_:body:method:requestHeaders:)`` with the body put by `putBody`, so that a body
    /// in a file is stored from it (`BlobStorage.put(contentsOf:for:metadata:expires:placement:)`).
    ///
    /// `decided` is what the caller decided already for `response` (its URL parsed, and what
    /// ``Storability/decide(method:requestHeaders:status:responseHeaders:freshness:policy:)`` said
    /// with its freshness), so that neither is done twice.
    package func store(
        _ response: StoredResponse, method: String, requestHeaders: HTTPHeaders, decided: Decided? = nil,
        putBody: BodyPut
    ) throws -> Storability {
        guard let plan = plan(response, method: method, requestHeaders: requestHeaders, decided: decided) else {
            return .notStored("the URL is invalid")
        }
        let (url, decision, record, expires) = (plan.url, plan.decision, plan.record, plan.expires)
        let placement: StoragePlacement
        switch decision {
        case .memoryAndDisk: placement = .memoryAndDisk
        case .memoryOnly: placement = .memoryOnly
        case .notStored: return decision
        }
        let key = Self.entryKey(for: record, url: url)
        let metadata = try decoded.encoded(CacheRecord(response: record), for: key)
        do {
            if let vary = record.vary {
                // On disk whatever this variant's placement: the other variants on disk need it.
                // Written only when it changes, so a memory-only variant costs no disk write.
                let namesKey = Self.key(for: url)
                let names = try decoded.encoded(CacheRecord(variants: vary.names), for: namesKey)
                if try store.info(for: namesKey)?.metadata != names {
                    try store.put(Data(), for: namesKey, metadata: names, expires: nil, placement: .memoryAndDisk)
                }
            }
            try putBody(key, metadata, expires, placement)
        } catch let error as BlobStoreError where error.code == .tooLarge {
            // Larger than the store's capacity: served, not kept. Other failures are the store's.
            _ = try? store.remove(key)
            return .notStored("the response is too large for the store: \(error.message)")
        }
        return decision
    }

    /// Stores `response`, the stored response for `body` refreshed by a 304 (RFC 9111 §4.3.4).
    /// When it stays on disk under the same key, only its headers and expiry are written
    /// (`BlobStorage.update(_:metadata:expires:)`): the body is neither hashed nor copied again. Otherwise it is stored as ``store(_:body:method:requestHeaders:)`` stores it.
    package func refresh(_ response: StoredResponse, body: Data, requestHeaders: HTTPHeaders) throws -> Storability {
        try refresh(response, requestHeaders: requestHeaders) { key, metadata, expires, placement in
            try self.store.put(body, for: key, metadata: metadata, expires: expires, placement: placement)
        }
    }

    /// ``refresh(_:body:requestHeaders:)`` with the body, when it must be stored again, put by
    /// `putBody`.
    func refresh(_ response: StoredResponse, requestHeaders: HTTPHeaders, putBody: BodyPut) throws -> Storability {
        if let refreshed = try refreshInPlace(response, requestHeaders: requestHeaders) { return refreshed }
        return try store(response, method: "GET", requestHeaders: requestHeaders, putBody: putBody)
    }

    /// The part of ``refresh(_:body:requestHeaders:)`` that needs no body: when `response` stays
    /// on disk under the same key, its headers and expiry are written and the decision returned;
    /// `nil` when it would have to be stored again with its body.
    package func refreshInPlace(_ response: StoredResponse, requestHeaders: HTTPHeaders) throws -> Storability? {
        guard let plan = plan(response, method: "GET", requestHeaders: requestHeaders),
            case .memoryAndDisk = plan.decision, plan.record.vary == response.vary
        else { return nil }
        let key = Self.entryKey(for: plan.record, url: plan.url)
        let metadata = try decoded.encoded(CacheRecord(response: plan.record), for: key)
        guard try store.info(for: key) != nil, try store.update(key, metadata: metadata, expires: plan.expires) else {
            return nil
        }
        return plan.decision
    }

    /// What a caller of ``store(_:method:requestHeaders:decided:putBody:)`` decided already of a
    /// response: its URL, parsed, whether it may be stored, and its freshness that decision used.
    package typealias Decided = (url: URL, storability: Storability, freshness: Freshness)

    /// What RFC 9111 decides for storing `response` (``Storability/decide(method:requestHeaders:status:responseHeaders:freshness:policy:)``),
    /// the record to keep (with the `Vary` key of `requestHeaders`) and its expiry; `nil` for a
    /// URL that does not parse.
    private func plan(_ response: StoredResponse, method: String, requestHeaders: HTTPHeaders, decided: Decided? = nil)
        -> (url: URL, decision: Storability, record: StoredResponse, expires: Date?)?
    {
        let url: URL
        let freshness: Freshness
        let decision: Storability
        if let decided {
            (url, decision, freshness) = decided
        } else {
            guard let parsed = URL(string: response.url) else { return nil }
            url = parsed
            freshness = response.freshness(policy)
            decision = Storability.decide(
                method: method, requestHeaders: requestHeaders, status: response.status,
                responseHeaders: response.headers, freshness: freshness, policy: policy)
        }
        var record = response
        let names = response.headers.list("Vary")
        record.vary = names.isEmpty ? nil : VaryKey(names: names, request: requestHeaders)
        return (url, decision, record, expiry(of: record, freshness: freshness))
    }

    /// Removes what is stored for `url` (every variant becomes unreachable and is left to
    /// eviction), as an unsafe request to it requires (RFC 9111 §4.4).
    public func invalidate(_ url: URL) throws {
        try store.remove(Self.key(for: url))
    }

    /// Removes every stored response (and everything else in the store it uses); returns how
    /// many entries went (`BlobStorage.removeAll()`).
    @discardableResult
    public func removeAll() throws -> Int {
        try store.removeAll()
    }

    /// The key of the entry that holds `response` for `url`: its variant's, or the URL's when it
    /// has no `Vary`.
    static func entryKey(for response: StoredResponse, url: URL) -> StoreKey {
        response.vary.map { variantKey(for: url, $0) } ?? key(for: url)
    }

    /// Removes the entry that holds `response` for `url`; the other variants stay.
    package func removeStored(_ response: StoredResponse, url: URL) throws {
        try store.remove(Self.entryKey(for: response, url: url))
    }

    /// When an entry stops being useful: never for a response with a validator (it can always
    /// be revalidated), else at the end of its freshness, its `stale-while-revalidate` or
    /// `stale-if-error` window (the longer), and the policy's ``HTTPCachePolicy/staleRetention``.
    private func expiry(of response: StoredResponse, freshness: Freshness) -> Date? {
        guard !response.hasValidator else { return nil }
        let control = policy.responseDirectives(response.headers)
        let window = TimeInterval(max(control.staleWhileRevalidate ?? 0, control.staleIfError ?? 0))
        let remaining =
            freshness.lifetime + window + policy.staleRetention - response.age(at: response.responseTime)
        return response.responseTime.addingTimeInterval(max(0, remaining))
    }
}
