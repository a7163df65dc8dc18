/// A value whose bytes are in packs, found under the store's mutex and read after it is let go:
/// one needle (a packed value), or the needles of a chunked value's chunks.
enum LocatedValue: Sendable {
    case needle(PackedRead)
    /// Boxed: a read of a small value copies this around, and a chunked read is much larger
    /// than a needle (100 B gets measured 5-7 % slower with it inline: docs/benchmarks.md).
    indirect case chunks(ChunkedRead)

    /// The value's bytes: a needle checked against its header and rehashed (when `verify`), or
    /// every chunk copied and checked against its recipe (``ChunkedRead/read(_:verify:content:)``).
    func read(_ digest: SHA256Digest, verify: Bool, content: ContentStore) -> ContentStore.ReadResult {
        switch self {
        case .needle(let needle):
            BlobStore.checked(needle.read(), digest: digest, verify: verify)
        case .chunks(let chunked):
            chunked.read(chunked.located, verify: verify, content: content)
        }
    }
}
