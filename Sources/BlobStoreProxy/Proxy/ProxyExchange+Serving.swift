import BlobStore
import BlobStoreHTTP
import Foundation

// MARK: - Answers the proxy makes itself

extension ProxyExchange {
    /// Answers with a stored response, or `304 Not Modified` when the client's own copy matches
    /// it (`If-None-Match`, else `If-Modified-Since`; RFC 9110 §13.2.2).
    ///
    /// - Throws: `network` when the client connection fails; `io` when a stored file cannot be read.
    func serve(_ stored: StoredResponse, body: StoredBody) async throws {
        let (head, range) = answer(stored, body: body)
        try await body.send(range, after: head, to: client)
    }

    /// ``serve(_:body:)``, unless the body is gone (``StoredBody/Gone``: a chunked body's chunks
    /// removed or damaged since the lookup), nothing sent: then what the answer counted is taken
    /// back and the caller answers otherwise. Returns whether it served.
    func serveUnlessGone(_ stored: StoredResponse, body: StoredBody) async throws -> Bool {
        do {
            try await serve(stored, body: body)
            return true
        } catch is StoredBody.Gone {
            forgetServed()
            return false
        }
    }

    /// The head and the range of the body that answer with `stored` (``serve(_:body:)``), noted
    /// for the log and the metrics.
    func answer(_ stored: StoredResponse, body: StoredBody) -> (head: [UInt8], range: Range<Int>) {
        let now = Date()
        let matches = Self.clientCopyMatches(stored, request: request.headers)
        let ranged =
            stored.status == 200 && request.method == "GET" && Self.rangeApplies(stored, request: request.headers)
        if !matches, !ranged, stored.status != 204, !(100..<200).contains(stored.status) {
            // The common hit, the whole body: its head written in one pass.
            let head = wholeHead(stored, at: now, contentLength: body.count)
            let range = request.method == "HEAD" ? 0..<0 : 0..<body.count
            sentStatus = stored.status
            sentBytes = range.count
            context.metrics.bytesFromCache.add(range.count, ordering: .relaxed)
            return (head, range)
        }
        var headers = stored.servedHeaders(at: now)
        var status = stored.status
        if matches {
            status = 304
            // The fields a 200 would have had that describe the representation's metadata
            // (RFC 9110 §15.4.5).
            let kept: Set<String> = [
                "cache-control", "content-location", "date", "etag", "expires", "vary", "age", "last-modified",
            ]
            headers = HTTPHeaders(headers.fields.filter { kept.contains($0.name.lowercased()) })
        } else if status != 204, !(100..<200).contains(status) {
            headers.set("Transfer-Encoding", nil)
            headers.set("Content-Length", String(body.count))
        }
        var range = 0..<body.count
        if ranged {
            switch ByteRange.of(request.headers["Range"], length: body.count) {
            case .whole: break
            case .part(let part):
                status = 206
                range = part
                headers.set("Content-Range", "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(body.count)")
                headers.set("Content-Length", String(part.count))
            case .unsatisfiable:
                status = 416
                range = 0..<0
                headers.set("Content-Range", "bytes */\(body.count)")
                headers.set("Content-Length", "0")
            }
        }
        let head = finalHead(status: status, reason: "", headers: headers)
        sentStatus = status
        if request.method == "HEAD" || status == 304 || status == 204 { range = 0..<0 }
        sentBytes = range.count
        context.metrics.bytesFromCache.add(range.count, ordering: .relaxed)
        return (head, range)
    }

    /// Whether the request's `Range` may be served from `stored`: no `If-Range`, or one naming
    /// the stored response (its strong `ETag`, or its `Last-Modified` date exactly; RFC 9110
    /// §13.1.5).
    static func rangeApplies(_ stored: StoredResponse, request: HTTPHeaders) -> Bool {
        guard request.contains("Range") else { return false }
        guard let condition = request["If-Range"]?.trimmingOptionalWhitespace() else { return true }
        if condition.hasPrefix("\"") { return stored.etag == condition }
        return stored.lastModifiedValue == condition
    }

    /// Whether the client's conditional request names the stored response: an `If-None-Match`
    /// entity-tag equal to its `ETag` by weak comparison (or `*`), or, without `If-None-Match`,
    /// an `If-Modified-Since` not before its `Last-Modified`.
    static func clientCopyMatches(_ stored: StoredResponse, request: HTTPHeaders) -> Bool {
        if let tags = request["If-None-Match"] {
            guard let etag = stored.etag else { return tags.trimmingOptionalWhitespace() == "*" }
            let weak = { (tag: String) in tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
            return tags.split(separator: ",").contains { tag in
                let tag = tag.trimmingOptionalWhitespace()
                return tag == "*" || weak(tag) == weak(etag.trimmingOptionalWhitespace())
            }
        }
        guard let since = request["If-Modified-Since"].flatMap(HTTPDate.parse),
            let modified = (stored.lastModifiedValue ?? stored.headers["Date"]).flatMap(HTTPDate.parse)
        else { return false }
        return modified <= since
    }

    /// The bytes of the head of a final response to the client: `headers` in order, then the
    /// proxy's members appended to `Via` and `Cache-Status` (each one field, after the others),
    /// then `Connection: close` when the connection ends after it; written in one pass.
    func finalHead(status: Int, reason: String, headers: HTTPHeaders) -> [UInt8] {
        let via = proxyVia()
        var writer = HeadWriter(status: status, reason: reason.isEmpty ? ResponseHead.reason(for: status) : reason)
        var vias: String?
        var cacheStatuses: String?
        for field in headers {
            if HTTPHeaders.sameName(field.name, "Via") {
                vias = vias.map { "\($0), \(field.value)" } ?? field.value
            } else if HTTPHeaders.sameName(field.name, "Cache-Status") {
                cacheStatuses = cacheStatuses.map { "\($0), \(field.value)" } ?? field.value
            } else if keepAlive || !HTTPHeaders.sameName(field.name, "Connection") {
                writer.field(field.name, field.value)
            }
        }
        writer.field("Via", joining: vias, via)
        writer.field("Cache-Status", joining: cacheStatuses) {
            cacheStatus.append(name: context.configuration.name, to: &$0)
        }
        if !keepAlive { writer.field("Connection", "close") }
        return writer.ended()
    }

    /// The bytes of the ``finalHead(status:reason:headers:)`` of `stored` served whole with
    /// `contentLength` at `now` (its ``StoredResponse/servedHeaders(at:)`` with
    /// `Content-Length` set): the field lines that pass as stored, written when the response was
    /// decoded, then the fields set per answer, rather than a copy of the stored fields edited
    /// field by field.
    func wholeHead(_ stored: StoredResponse, at now: Date, contentLength: Int) -> [UInt8] {
        let via = proxyVia()
        var writer = HeadWriter(status: stored.status, reason: ResponseHead.reason(for: stored.status))
        writer.lines(stored.passedFieldLines[...])
        writer.field("Age", stored.servedAge(at: now))
        writer.field("Content-Length", contentLength)
        writer.field("Via", joining: stored.storedVia, via)
        writer.field("Cache-Status", joining: stored.storedCacheStatus) {
            cacheStatus.append(name: context.configuration.name, to: &$0)
        }
        if !keepAlive { writer.field("Connection", "close") }
        return writer.ended()
    }

    /// The proxy's `Via` member for the final response; the exchange stops keeping the
    /// connection alive when the proxy stops.
    private func proxyVia() -> String {
        if context.stopping.load(ordering: .relaxed) { keepAlive = false }
        return context.viaMember
    }

    /// Answers with an error the proxy generates, a line of text saying why.
    func sendError(_ status: Int, _ reason: String) throws {
        let body = Array("\(status) \(ResponseHead.reason(for: status)): \(reason).\n".utf8)
        let headers: HTTPHeaders = [
            "Date": HTTPDate.format(Date()), "Content-Type": "text/plain; charset=utf-8",
            "Content-Length": String(body.count), "Cache-Control": "no-store",
        ]
        sentStatus = status
        sentBytes = body.count
        var bytes = finalHead(status: status, reason: "", headers: headers)
        if request.method != "HEAD" { bytes.append(contentsOf: body) }
        try client.write(bytes)
    }

    /// Revalidates `stored` in a task of its own on the client's loop while the stale response
    /// answers (`stale-while-revalidate`); one revalidation per stored response at a time.
    func revalidateInBackground(_ stored: StoredResponse, body: StoredBody, url: URL, target: ForwardTarget) {
        guard let loop = client.loop else { return }
        let key = HTTPCache.key(for: url).string + "\n" + (stored.vary?.suffix ?? "")
        guard context.revalidating.withLock({ $0.insert(key).inserted }) else { return }
        let revalidation = BackgroundRevalidation(context: context, request: request, loop: loop)
        let context = self.context
        loop.spawn {
            defer { _ = context.revalidating.withLock { $0.remove(key) } }
            await revalidation.run(stored, body: body, url: url, target: target)
        }
    }
}
