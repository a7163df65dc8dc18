internal import CLibCrypto
import Foundation
import Synchronization

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
    /// Contexts are reused from a small pool and the algorithm is fetched once: `EVP_Digest`
    /// makes, fetches into and frees a context per call, which costs 0.4 µs, more than hashing
    /// 100 bytes (measured with OpenSSL 3.0 on the benchmark machine).
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        let context = OneShotContexts.shared.take()
        defer { OneShotContexts.shared.give(context) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { output in
            var length: UInt32 = 0
            guard EVP_DigestInit_ex(context, OneShotContexts.shared.sha256, nil) == 1,
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

/// Digest contexts kept for one-shot hashes, and SHA-256 fetched once. `@unchecked Sendable`: the
/// contexts are only handed out under the mutex, one caller each, and the algorithm object is
/// immutable once fetched.
private final class OneShotContexts: @unchecked Sendable {
    static let shared = OneShotContexts()

    /// A context handed from one caller to the next, never used by two at once.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    let sha256: OpaquePointer
    private let idle = Mutex<[Context]>([])
    /// Contexts beyond this many idle ones are freed.
    private static let limit = 16

    private init() {
        guard let fetched = EVP_MD_fetch(nil, "SHA256", nil) else { preconditionFailure("EVP_MD_fetch(SHA256) failed") }
        sha256 = fetched
    }

    func take() -> OpaquePointer {
        if let context = idle.withLock({ $0.popLast() }) { return context.pointer }
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        return context
    }

    func give(_ pointer: OpaquePointer) {
        let context = Context(pointer: pointer)
        let kept = idle.withLock { idle -> Bool in
            guard idle.count < Self.limit else { return false }
            idle.append(context)
            return true
        }
        if !kept { EVP_MD_CTX_free(pointer) }
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
