import BlobStore
import BlobStoreCache
import BlobStoreHTTP
import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `blobstore fetch <url> [-o <file>] [--header '<name>: <value>']... [--min-disk-lifetime <duration>]
/// [--chunk-threshold <size>] [--allow-http-errors]`: its description, its value, and its run below.
struct FetchCommand: SubcommandValue {
    /// The `http` or `https` URL, taken as given.
    var url = ""
    /// `-o`, `--output`: the file to write; `nil` (or `-`) is standard output.
    var output: String?
    /// `--header 'Name: value'`, in order, split into name and value (the name checked to be a
    /// token, the value without surrounding whitespace).
    var headers: [HTTPHeaders.Field] = []
    /// `--min-disk-lifetime <duration>`; `nil` keeps the library's default (5 minutes).
    var minimumDiskLifetime: Duration?
    /// `--allow-http-errors`: write the body of a 4xx or 5xx response and exit 0, as for any
    /// other status, instead of failing (exit 69) without writing it.
    var allowsHTTPErrors = false
    /// `--chunk-threshold <size>`: a body at least this large is kept as chunks.
    var chunkThreshold: UInt64?

    static let spec = CommandSpec<FetchCommand>(
        .fetch,
        abstract: "Fetch a URL through the store's HTTP cache and write the body to standard output or a file.",
        discussion: "Follows RFC 9111: a fresh stored response answers without a request; a stale one with "
            + "an ETag or Last-Modified is revalidated with a conditional request, and a 304 keeps the "
            + "stored body; otherwise the response is fetched and stored unless it cannot be "
            + "(no-store, Vary: *, an uncacheable status, a redirect, stale at once without a "
            + "validator). A response fresh for less than 5 minutes (see --min-disk-lifetime) is not "
            + "stored, as this process keeps nothing in memory, and it removes the entry stored for "
            + "the URL. Prints on standard error one line: 'fresh hit', "
            + "'revalidated hit' or 'miss'. A 4xx or 5xx status writes no body and exits 69, unless "
            + "--allow-http-errors; a request that fails exits 74. See docs/http.md.",
        arguments: [.required("<url>", help: "The http or https URL to fetch.", .httpURL, \.url)],
        options: [
            .value(
                "-o", "--output", valueName: "<file>", help: "Write the body to <file> instead of standard output.",
                .path(.file), \.output),
            .repeated(
                "--header", valueName: "'<name>: <value>'",
                help: "Send this request header; repeat for several. Headers named by a response's Vary "
                    + "select the stored variant.", .header, \.headers),
            .value(
                "--min-disk-lifetime", valueName: "<duration>",
                help: "Store responses fresh for at least this long: a number with ms, s, m, h, d or w, e.g. "
                    + "0s to store every cacheable response, revalidating it when stale.", default: "5m",
                .duration, \.minimumDiskLifetime),
            .chunkThreshold("bodies", \.chunkThreshold),
            .flag(
                "--allow-http-errors",
                help: "Write the body of a 4xx or 5xx response and exit 0, as for any other status.",
                \.allowsHTTPErrors),
        ])

    func run(in runner: Runner) throws -> Int32 { try runner.fetch(self) }
}

extension Runner {
    /// `fetch <url> [-o <file>] [--header 'Name: value']... [--allow-http-errors]`: answers through
    /// the store's HTTP cache (`HTTPCache.download(for:to:)`: the body is never held in memory
    /// whole), writes the body, and prints `fresh hit`, `revalidated hit` or `miss`
    /// on standard error. A stale response is always revalidated before it answers: this process
    /// does not live to revalidate in the background. A 4xx or 5xx status writes nothing and exits
    /// 69, unless `--allow-http-errors`.
    func fetch(_ command: FetchCommand) throws -> Int32 {
        let url = command.url
        guard let target = URL(string: url) else {
            throw CommandFailure(ExitCode.usage, "'\(url)' is not a URL.")
        }
        var request = URLRequest(url: target)
        for field in command.headers {
            request.addValue(field.value, forHTTPHeaderField: field.name)
        }
        var policy = HTTPCachePolicy()
        policy.servesStaleWhileRevalidating = false
        if let lifetime = command.minimumDiskLifetime {
            policy.minimumDiskLifetime = lifetime.seconds
        }
        let prepared = request
        return try withStore(chunkThreshold: command.chunkThreshold) { store in
            let cache = HTTPCache(store: CachedStore(disk: store), policy: policy)
            // Received into the store's tmp/ (never held in memory whole), then copied out once
            // the status says it may be: an error status leaves the destination untouched.
            let spool = try store.makeSpoolFile()
            defer { try? FileManager.default.removeItem(at: spool) }
            let result = try Self.waitFor { try await cache.download(for: prepared, to: spool) }
            note("\(result.outcome)\n")
            if (400...599).contains(result.status), !command.allowsHTTPErrors {
                throw CommandFailure(
                    ExitCode.httpError,
                    "\(url) answered with status \(result.status); the body was not written. Pass "
                        + "--allow-http-errors to write it and exit 0.")
            }
            let body = try FileHandle(forReadingFrom: spool)
            defer { try? body.close() }
            try copy(body, to: command.output)
            return ExitCode.success
        }
    }

    /// Runs `operation` on the concurrency pool and blocks this (non-pool) thread until it ends.
    private static func waitFor<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else {
            preconditionFailure("the task signalled without a result")
        }
        return try result.get()
    }
}
