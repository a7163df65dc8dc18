internal import CLibCrypto
import Foundation

// The only file that calls libcrypto. Everything else sees `SHA256Digest`, `MD5Digest` and
// the two incremental hashers below.

/// An incremental SHA-256 over OpenSSL's EVP interface, for streams.
public final class SHA256Hasher {
    private let context: OpaquePointer

    public init() {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            preconditionFailure("EVP_DigestInit_ex(SHA-256) failed")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Feeds `bytes` to the hash.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else {
            preconditionFailure("EVP_DigestUpdate failed")
        }
    }

    /// Returns the digest of everything fed so far. Call once.
    public func finalize() -> SHA256Digest {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &output, &length) == 1, length == 32 else {
            preconditionFailure("EVP_DigestFinal_ex failed")
        }
        return SHA256Digest(bytes: output)!
    }

    /// The SHA-256 of `bytes` in one call.
    ///
    /// Each thread reuses one context and the algorithm is fetched once: `EVP_Digest` makes,
    /// fetches into and frees a context per call, which costs 0.4 µs, more than hashing 100
    /// bytes (measured with OpenSSL 3.0 on the benchmark machine), and a pool shared by threads
    /// made two threads reading at once wait for each other.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        let context = OneShotContext.ofThisThread()
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { output in
            var length: UInt32 = 0
            guard EVP_DigestInit_ex(context, OneShotContext.sha256, nil) == 1,
                bytes.isEmpty || EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1,
                EVP_DigestFinal_ex(context, output.baseAddress, &length) == 1,
                length == 32
            else {
                preconditionFailure("SHA-256 failed")
            }
            return SHA256Digest(raw: UnsafeRawPointer(output.baseAddress!))
        }
    }

    /// The SHA-256 of a byte collection in one call.
    public static func hash(_ bytes: some ContiguousBytes) -> SHA256Digest {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The SHA-256 of the file at `url`, read 1 MiB at a time.
    ///
    /// - Throws: ``BlobStoreError`` when the file cannot be opened or read.
    public static func hash(contentsOf url: URL) throws -> SHA256Digest {
        let fd = try Syscalls.openSource(url.path)
        defer { Syscalls.close(fd) }
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try Syscalls.readFully(fd, into: buffer)
            if count == 0 { return hasher.finalize() }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}

/// The digest context of each thread for one-shot hashes (kept in a `pthread` key, freed when
/// the thread ends), and SHA-256 fetched once. A context is only used by its own thread, and
/// ``SHA256Hasher/hash(_:)-(UnsafeRawBufferPointer)`` calls nothing that could hash again
/// before it is done with it.
private enum OneShotContext {
    /// Immutable once fetched, and libcrypto's algorithm objects may be shared by threads.
    nonisolated(unsafe) static let sha256: OpaquePointer = {
        guard let fetched = EVP_MD_fetch(nil, "SHA256", nil) else { preconditionFailure("EVP_MD_fetch(SHA256) failed") }
        return fetched
    }()

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { context in
            if let context { EVP_MD_CTX_free(OpaquePointer(context)) }
        }
        precondition(created == 0, "pthread_key_create failed")
        return key
    }()

    /// This thread's context, made on its first hash.
    static func ofThisThread() -> OpaquePointer {
        if let context = pthread_getspecific(key) { return OpaquePointer(context) }
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        precondition(pthread_setspecific(key, UnsafeRawPointer(context)) == 0, "pthread_setspecific failed")
        return context
    }
}

/// An incremental MD5 over OpenSSL's EVP interface.
final class MD5Hasher {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        guard EVP_DigestInit_ex(context, EVP_md5(), nil) == 1 else {
            preconditionFailure("EVP_DigestInit_ex(MD5) failed")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Feeds `bytes` to the hash.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else {
            preconditionFailure("EVP_DigestUpdate failed")
        }
    }

    /// Returns the digest of everything fed so far. Call once.
    func finalize() -> MD5Digest {
        var output = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &output, &length) == 1, length == 16 else {
            preconditionFailure("EVP_DigestFinal_ex failed")
        }
        return MD5Digest(uncheckedBytes: output)
    }

    /// The MD5 of a byte collection in one call.
    static func hash(_ bytes: some ContiguousBytes) -> MD5Digest {
        let hasher = MD5Hasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }
}
