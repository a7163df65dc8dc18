import BlobStore
import BlobStoreHTTP
import Foundation

/// A conditional request for a stale response that already answered its client
/// (`stale-while-revalidate`): a `304` refreshes it, a storable full response replaces it.
struct BackgroundRevalidation {
    let context: ProxyContext
    /// The request whose answer was stale: its fields select the variant and go to the origin.
    let request: RequestHead
    /// The loop the revalidation's task runs on.
    let loop: EventLoop

    func run(_ stored: StoredResponse, body: StoredBody, url: URL, target: ForwardTarget) async {
        let cache = context.cache
        let head = MessageHeaders.originRequest(
            method: "GET", target: target, clientHeaders: request.headers, validating: stored, framing: .none,
            via: context.viaMember)
        let requestTime = Date()
        context.metrics.revalidations.add(1, ordering: .relaxed)
        do {
            let (fd, _) = try await loop.origins.connection(to: target, on: loop, fresh: true)
            try fd.write(head)
            try await fd.flush()
            var response: ResponseHead
            repeat {
                guard
                    let bytes = try await fd.readHead(
                        maxBytes: 64 << 10, idle: context.configuration.originTimeout,
                        complete: context.configuration.originTimeout, tooLarge: 502)
                else { return }
                response = try HeadParser.response(bytes)
            } while response.isInterim
            var reader = BodyReader(connection: fd, framing: try HeadParser.framing(of: response, method: "GET"))
            if response.status == 304 {
                guard stored.isValidated(by: response.headers) else { return }
                context.metrics.notModified.add(1, ordering: .relaxed)
                let (refreshed, _) = ProxyExchange.refreshed(stored, by: response, requestTime: requestTime)
                _ = try body.refresh(refreshed, in: cache, requestHeaders: request.headers)
                return
            }
            let record = StoredResponse(
                url: url.absoluteString, status: response.status, headers: response.headers, vary: nil,
                requestTime: requestTime, responseTime: Date())
            let kept = KeptBody(spoolingTo: context.makeSpoolFile)
            while let chunk = try await reader.next() {
                guard kept.count + chunk.count <= context.configuration.maxObjectBytes else { return }
                try kept.append(chunk)
            }
            guard !reader.isTruncated else { return }
            if case .notStored = try kept.store(record, in: cache, requestHeaders: request.headers) { return }
            context.metrics.stored.add(1, ordering: .relaxed)
        } catch {
            // The stale response already answered; the next request tries again.
        }
    }
}
