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
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { output in
            var length: UInt32 = 0
            guard EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress, &length, EVP_sha256(), nil) == 1,
                length == 32, let digest = SHA256Digest(bytes: output)
            else {
                preconditionFailure("EVP_Digest(SHA-256) failed")
            }
            return digest
        }
    }

    /// The SHA-256 of a byte collection in one call.
    public static func hash(_ bytes: some ContiguousBytes) -> SHA256Digest {
        bytes.withUnsafeBytes { hash($0) }
    }
}

/// An incremental MD5 over OpenSSL's EVP interface.
public final class MD5Hasher {
    private let context: OpaquePointer

    public init() {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        guard EVP_DigestInit_ex(context, EVP_md5(), nil) == 1 else {
            preconditionFailure("EVP_DigestInit_ex(MD5) failed")
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
    public func finalize() -> MD5Digest {
        var output = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &output, &length) == 1, length == 16 else {
            preconditionFailure("EVP_DigestFinal_ex failed")
        }
        return MD5Digest(uncheckedBytes: output)
    }

    /// The MD5 of a byte collection in one call.
    public static func hash(_ bytes: some ContiguousBytes) -> MD5Digest {
        let hasher = MD5Hasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }
}
