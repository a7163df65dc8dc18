import BlobStore
import BlobStoreHTTP
import Foundation
import Glibc

// MARK: - To the origin

extension ProxyExchange {
    /// Sends the request to the origin — conditional on `stored`'s validators when given and
    /// `conditional` — and answers the client: from `stored` after a `304` (or after a failure
    /// that `stale-if-error` covers), else with the origin's response, stored when it may be.
    func forward(
        to target: ForwardTarget, body: inout BodyReader, stored: (StoredResponse, StoredBody)?,
        conditional: Bool = true
    ) async throws {
        let requestTime = Date()
        var validated: StoredResponse?
        if conditional, let (response, _) = stored { validated = response }
        let head = MessageHeaders.originRequest(
            method: request.method, target: target, clientHeaders: request.headers, validating: validated,
            framing: body.framing, via: context.viaMember)
        let response: ResponseHead
        let connection: WireConnection
        do {
            (response, connection) = try await send(head, body: &body, to: target, relayingInterim: true)
        } catch let error as BlobStoreError {
            if let (storedResponse, storedBody) = stored,
                storedResponse.mayAnswerOnError(at: Date(), requestHeaders: request.headers, policy: policy)
                    || storedResponse.mayAnswerDisconnected(requestHeaders: request.headers, policy: policy)
            {
                // The origin cannot be reached: a disconnected cache may answer stale (RFC 9111
                // §4.2.4), unless the response or the request forbids it.
                cacheStatus.detail = "stale, the origin failed: \(error.message)"
                if try await serveUnlessGone(storedResponse, body: storedBody) { return }
                cacheStatus.detail = nil
            }
            context.metrics.originErrors.add(1, ordering: .relaxed)
            let timedOut = error.errno == ETIMEDOUT
            return try sendError(timedOut ? 504 : 502, "the origin \(target.authority) failed: \(error.description)")
        } catch let rejection as Rejection {
            context.metrics.originErrors.add(1, ordering: .relaxed)
            return try sendError(rejection.status, rejection.reason)
        }
        cacheStatus.forwardStatus = response.status
        if let (storedResponse, storedBody) = stored, let url = target.url {
            if response.status == 304, conditional {
                origins.giveBack(connection, to: target, if: response.keepsAlive)
                guard storedResponse.isValidated(by: response.headers) else {
                    // The 304 is about another representation (RFC 9111 §4.3.4): fetch it anew.
                    _ = try? cache.removeStored(storedResponse, url: url)
                    var none = BodyReader(connection: client, framing: .none)
                    return try await forward(to: target, body: &none, stored: nil)
                }
                context.metrics.notModified.add(1, ordering: .relaxed)
                let (refreshed, changedTimesOnly) = Self.refreshed(
                    storedResponse, by: response, requestTime: requestTime)
                var removing = false
                do {
                    if !storedResponse.refreshLeavesUseUnchanged(changedTimesOnly: changedTimesOnly, policy: policy),
                        case .notStored = try storedBody.refresh(refreshed, in: cache, requestHeaders: request.headers)
                    {
                        removing = true
                    }
                } catch {
                    cacheStatus.detail = "the store failed: \(error)"
                }
                // Removed once it was sent: a chunked body is read from the entry's chunks.
                defer { if removing { _ = try? cache.removeStored(refreshed, url: url) } }
                if try await serveUnlessGone(refreshed, body: storedBody) { return }
                // Its body is gone (chunks removed or damaged since the lookup): fetched anew, and
                // stored again.
                removing = false
                var none = BodyReader(connection: client, framing: .none)
                return try await forward(to: target, body: &none, stored: nil)
            }
            if [500, 502, 503, 504].contains(response.status),
                storedResponse.mayAnswerOnError(at: Date(), requestHeaders: request.headers, policy: policy)
            {
                cacheStatus.detail = "stale-if-error"
                if try await serveUnlessGone(storedResponse, body: storedBody) { return }
                cacheStatus.detail = nil
            }
        }
        if request.method == "HEAD", response.status == 200, let url = target.url,
            let (storedResponse, storedBody) = await lookUpForHead(url), Self.headMatches(storedResponse, response)
        {
            // A 200 to HEAD freshens the stored GET response it describes (RFC 9111 §4.3.5), and the
            // client is answered from it, so that fields the HEAD left out are kept.
            let (refreshed, _) = Self.refreshed(storedResponse, by: response, requestTime: requestTime)
            _ = try? storedBody.refresh(refreshed, in: cache, requestHeaders: request.headers)
            if try await serveUnlessGone(refreshed, body: storedBody) {
                origins.giveBack(connection, to: target, if: response.keepsAlive)
                return
            }
        }
        try await relay(response, from: connection, target: target, requestTime: requestTime)
    }

    /// Tells `target` whether the response to this GET is stored (``ForwardTarget/noteResponse(storable:at:)``,
    /// hit-for-miss), when that says something of the URL: not when this request alone kept it
    /// from being stored (its own `no-store`, credentials, conditions or range, or the `304` or
    /// `206` they bring).
    private func noteStorability(of response: ResponseHead, storable: Bool, target: ForwardTarget) {
        guard request.method == "GET" else { return }
        if storable { return target.noteResponse(storable: true, at: .now) }
        guard response.status != 304, response.status != 206, !Self.isConditional(request.headers),
            !request.headers.contains("Authorization"), !request.headers.listContains("Cache-Control", "no-store")
        else { return }
        target.noteResponse(storable: false, at: .now)
    }

    /// The idle origin connections of the client's loop, whose tasks this exchange runs in.
    var origins: OriginConnections { client.loop!.origins }

    /// The stored GET response a HEAD request's answer may freshen, its body verified.
    private func lookUpForHead(_ url: URL) async -> (StoredResponse, StoredBody)? {
        await verified(try? StoredBody.lookUp(url, in: cache, requestHeaders: request.headers))
    }

    /// Whether a 200 to HEAD is about `stored`: the validators and length both have agree
    /// (RFC 9111 §4.3.5).
    static func headMatches(_ stored: StoredResponse, _ head: ResponseHead) -> Bool {
        for name in ["ETag", "Last-Modified", "Content-Length"] {
            if let new = head.headers[name], let old = stored.headers[name], new != old { return false }
        }
        return stored.status == 200
    }

    /// `stored` with the fields of a `304` and its times (RFC 9111 §4.3.4), and whether they
    /// changed no field but `Date` and `Age`.
    static func refreshed(_ stored: StoredResponse, by notModified: ResponseHead, requestTime: Date) -> (
        response: StoredResponse, changedTimesOnly: Bool
    ) {
        stored.refreshed(byNotModified: notModified.headers, requestTime: requestTime, responseTime: Date())
    }

    /// Sends `head` and `body` to the origin and reads its final response head, relaying interim
    /// (1xx) responses to the client when `relayingInterim`. A request without a body that fails
    /// on a reused connection before any answer (the origin closed it while idle) is sent again
    /// on a new one, if its method is idempotent.
    ///
    /// - Throws: `network` when the origin cannot be reached or fails; ``Rejection`` 502 for a
    ///   response that is not HTTP/1.x.
    func send(_ head: [UInt8], body: inout BodyReader, to target: ForwardTarget, relayingInterim: Bool)
        async throws -> (ResponseHead, WireConnection)
    {
        let idempotent =
            switch request.method {
            case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": true
            default: false
            }
        // Sent again on a new connection when a reused one turns out closed.
        let retried = idempotent && body.framing == .none
        var fresh = false
        while true {
            let (connection, reused) = try await origins.connection(
                to: target, on: client.loop!, fresh: fresh, peeking: !retried)
            do {
                try connection.write(head)
                if body.framing != .none {
                    // Each piece of the request body is read once the origin has taken the one before.
                    let writer = BodyWriter(connection: connection, framing: body.framing)
                    while let chunk = try await body.next() {
                        try writer.write(chunk)
                        try await connection.flush()
                    }
                    try writer.finish()
                }
                try await connection.flush()
                while true {
                    guard
                        let bytes = try await connection.readHead(
                            maxBytes: 64 << 10, idle: context.configuration.originTimeout,
                            complete: context.configuration.originTimeout,
                            tooLarge: 502)
                    else {
                        guard connection.reachedEnd else {
                            // Waiting again on a new connection would only double the wait.
                            throw BlobStoreError(
                                .network, "The origin sent nothing in \(context.configuration.originTimeout).",
                                errno: ETIMEDOUT)
                        }
                        throw BlobStoreError(.network, "The origin closed the connection without a response.")
                    }
                    let response = try HeadParser.response(bytes)
                    guard response.isInterim else { return (response, connection) }
                    guard response.status != 101 else { throw Rejection(502, "the origin switched protocols") }
                    if relayingInterim, request.minorVersion >= 1 {
                        let interim = ResponseHead(
                            minorVersion: 1, status: response.status, reason: response.reason,
                            headers: StoredResponse.endToEnd(response.headers))
                        try? client.write(interim.serialized)
                        try? await client.flush()
                    }
                }
            } catch let error as BlobStoreError where reused && !fresh && retried && error.errno != ETIMEDOUT {
                fresh = true
                continue
            }
        }
    }

    /// Relays the origin's final response to the client, streaming its body, and stores it
    /// when RFC 9111 allows and it is no larger than the configured maximum. A client that goes
    /// away mid-body does not stop a response that is being stored: it is read to its end.
    private func relay(
        _ response: ResponseHead, from connection: WireConnection, target: ForwardTarget, requestTime: Date
    ) async throws {
        let responseTime = Date()
        let incoming: BodyFraming
        do {
            incoming = try HeadParser.framing(of: response, method: request.method)
        } catch {
            context.metrics.originErrors.add(1, ordering: .relaxed)
            return try sendError(error.status, error.reason)
        }
        let isLookup = request.method == "GET" || request.method == "HEAD"
        if !isLookup, (200..<400).contains(response.status), let url = target.url {
            // Before the client sees the answer, so its next request cannot find the old one.
            invalidate(
                url, location: response.headers["Location"], contentLocation: response.headers["Content-Location"])
        }
        var headers = StoredResponse.endToEnd(response.headers)
        var storing = storable(
            response, headers: headers, target: target, framing: incoming, requestTime: requestTime,
            responseTime: responseTime)
        let outgoing: BodyFraming
        switch incoming {
        case .none: outgoing = .none
        case .length(let length): outgoing = .length(length)
        case .chunked, .untilClose: outgoing = request.minorVersion >= 1 ? .chunked : .untilClose
        }
        if outgoing == .untilClose { keepAlive = false }
        if outgoing == .chunked { headers.set("Transfer-Encoding", "chunked") }
        if outgoing == .chunked || outgoing == .untilClose { headers.set("Content-Length", nil) }
        cacheStatus.stored = storing != nil
        noteStorability(of: response, storable: storing != nil, target: target)
        let head = finalHead(status: response.status, reason: response.reason, headers: headers)
        var clientAlive = true
        do { try client.write(head) } catch { clientAlive = false }
        // What the client has not taken of the body so far: the origin is read no further ahead.
        func flushed() async {
            guard clientAlive else { return }
            do {
                try await client.flush()
            } catch {
                clientAlive = false
                client.discardUnsent()
            }
        }
        sentStatus = response.status
        var body = BodyReader(connection: connection, framing: incoming)
        let writer = BodyWriter(connection: client, framing: outgoing)
        var kept = storing == nil ? nil : KeptBody(spoolingTo: context.makeSpoolFile)
        // While a response is kept, its last bytes reach the client only once it is stored, so
        // that the client's next request finds it.
        // (A copy: a slice would keep the connection's buffer shared, and copied whole, at each read.)
        var held: [UInt8] = []
        func send(_ bytes: ArraySlice<UInt8>) {
            guard clientAlive, !bytes.isEmpty else { return }
            do {
                try writer.write(bytes)
                sentBytes += bytes.count
            } catch {
                clientAlive = false
            }
        }
        do {
            while let chunk = try await body.next() {
                context.metrics.bytesFromOrigin.add(chunk.count, ordering: .relaxed)
                if let body = kept {
                    if body.count + chunk.count > context.configuration.maxObjectBytes {
                        (kept, storing) = (nil, nil)
                        cacheStatus.detail =
                            "the body is larger than the \(context.configuration.maxObjectBytes) bytes stored"
                    } else {
                        do {
                            try body.append(chunk)
                        } catch {
                            (kept, storing) = (nil, nil)
                            cacheStatus.detail = "the body could not be kept: \(error)"
                        }
                    }
                }
                send(held[...])
                held = []
                if kept != nil { held = Array(chunk) } else { send(chunk) }
                await flushed()
                if !clientAlive, kept == nil { break }
            }
        } catch {
            // The origin failed inside the body: the client must see a cut, never a whole answer.
            context.metrics.originErrors.add(1, ordering: .relaxed)
            throw BlobStoreError(.network, "The origin failed inside the body: \(error)")
        }
        let complete = body.isFinished && !body.isTruncated
        if let storing, let kept, complete {
            do {
                if case .notStored(let why) = try kept.store(
                    storing.record, in: cache, requestHeaders: request.headers, decided: storing.decided)
                {
                    cacheStatus.detail = why
                } else {
                    context.metrics.stored.add(1, ordering: .relaxed)
                }
            } catch {
                cacheStatus.detail = "the store failed: \(error)"
            }
        }
        send(held[...])
        if complete, incoming != .untilClose {
            origins.giveBack(connection, to: target, if: response.keepsAlive)
        }
        guard clientAlive, complete else {
            throw BlobStoreError(.network, clientAlive ? "The origin's body ended early." : "The client went away.")
        }
        try writer.finish()
    }

    /// The response to store for `response`, whose end-to-end fields are `headers`, with what was
    /// decided for it (which the store then does not decide again), or `nil` when it may not be
    /// stored (the reason goes to the `Cache-Status` detail). The record is made only when the
    /// rules need its freshness or it is stored: a response that says `no-store` is passed
    /// through without it.
    private func storable(
        _ response: ResponseHead, headers: HTTPHeaders, target: ForwardTarget, framing: BodyFraming,
        requestTime: Date, responseTime: Date
    ) -> (record: StoredResponse, decided: HTTPCache.Decided)? {
        guard request.method == "GET", let url = target.url else { return nil }
        var made: (record: StoredResponse, freshness: Freshness)?
        func record() -> (record: StoredResponse, freshness: Freshness) {
            if let made { return made }
            let record = StoredResponse(
                url: url.absoluteString, status: response.status, endToEndHeaders: headers, requestTime: requestTime,
                responseTime: responseTime)
            made = (record, record.freshness(policy))
            return made!
        }
        let decision = Storability.decide(
            method: "GET", requestHeaders: request.headers, status: response.status, responseHeaders: headers,
            freshness: record().freshness, policy: policy)
        if case .notStored(let why) = decision {
            cacheStatus.detail = why
            return nil
        }
        if case .length(let length) = framing, length > Int64(context.configuration.maxObjectBytes) {
            cacheStatus.detail = "the body is larger than the \(context.configuration.maxObjectBytes) bytes stored"
            return nil
        }
        let (record, freshness) = record()
        return (record, (url, decision, freshness))
    }
}
