import BlobStore
import BlobStoreCache
import BlobStoreHTTP
import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Runner {
    /// `fetch <url> [-o <file>] [--header 'Name: value']... [--allow-http-errors]`: answers through
    /// the store's HTTP cache (`HTTPCache.download(for:to:)`: memory stays flat whatever the
    /// body's size), writes the body, and prints `fresh hit`, `revalidated hit` or `miss`
    /// on standard error. A stale response is always revalidated before it answers: this process
    /// does not live to revalidate in the background. A 4xx or 5xx status writes nothing and exits
    /// 69, unless `options.allowsHTTPErrors`.
    func fetch(url: String, output file: String?, options: FetchOptions) throws -> Int32 {
        guard let target = URL(string: url) else {
            throw CommandFailure(ExitCode.usage, "'\(url)' is not a URL.")
        }
        var request = URLRequest(url: target)
        for field in options.headers {
            request.addValue(field.value, forHTTPHeaderField: field.name)
        }
        var policy = HTTPCachePolicy()
        policy.servesStaleWhileRevalidating = false
        if let lifetime = options.minimumDiskLifetime {
            policy.minimumDiskLifetime = lifetime.seconds
        }
        let prepared = request
        return try withStore { store in
            let cache = HTTPCache(store: CachedStore(disk: store), policy: policy)
            // Received into the store's tmp/ (flat memory whatever the size), then copied out once
            // the status says it may be: an error status leaves the destination untouched.
            let spool = try store.makeSpoolFile()
            defer { try? FileManager.default.removeItem(at: spool) }
            let result = try Self.waitFor { try await cache.download(for: prepared, to: spool) }
            note("\(result.outcome)\n")
            if (400...599).contains(result.status), !options.allowsHTTPErrors {
                throw CommandFailure(
                    ExitCode.httpError,
                    "\(url) answered with status \(result.status); the body was not written. Pass "
                        + "--allow-http-errors to write it and exit 0.")
            }
            let body = try FileHandle(forReadingFrom: spool)
            defer { try? body.close() }
            try copy(body, to: file)
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
