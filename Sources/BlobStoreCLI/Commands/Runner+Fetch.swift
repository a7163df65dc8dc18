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
    /// the store's HTTP cache, writes the body, and prints `fresh hit`, `revalidated hit` or `miss`
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
            let result = try Self.waitFor { try await cache.data(for: prepared) }
            note("\(result.outcome)\n")
            if (400...599).contains(result.status), !options.allowsHTTPErrors {
                throw CommandFailure(
                    ExitCode.httpError,
                    "\(url) answered with status \(result.status); the body was not written. Pass "
                        + "--allow-http-errors to write it and exit 0.")
            }
            let destination = file == "-" ? nil : file
            let handle = try destination.map(openForWriting) ?? self.output.handle
            try handle.write(contentsOf: result.body)
            if destination != nil { try handle.close() }
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
