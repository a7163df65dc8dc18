import Foundation

/// A packed value as ``PackFiles/locate(_:size:digest:layout:)`` found it under the store's
/// mutex: a needle inside the part of a mapped pack known to exist, or why it cannot be read.
///
/// The bytes are copied out by ``read()``, which needs neither the mutex nor a system call: the
/// needle holds its pack's mapping, so the pack stays mapped until the copy is done even if the
/// store unmaps it meanwhile (the pack deleted by a repack or a gc), and the store never
/// truncates a pack or writes over a needle (docs/design.md, "Packs"). A reader copying a needle
/// therefore never holds the mutex that other readers and writers wait for.
enum PackedRead: Sendable {
    /// A needle whose bytes the pack held when it was found.
    case needle(Needle)
    /// The pack is gone or shorter than the needle.
    case missing
    /// The needle's place is impossible or the pack's own header is damaged.
    case corrupt(reason: String)

    /// A needle's place in a mapped pack.
    struct Needle: Sendable {
        /// The pack's mapping (``PackFormat/maximumPackSize`` bytes long whatever the file's size).
        let mapping: FileMapping
        /// Bytes of the mapping that the file held when the needle was found: all that may be read.
        let readable: Int
        let offset: UInt64
        let size: UInt64
        let digest: SHA256Digest

        /// `body` given the readable part of the pack's mapping, the mapping kept for the call.
        func withPack<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            withExtendedLifetime(mapping) { body(UnsafeRawBufferPointer(rebasing: mapping.bytes[..<readable])) }
        }

        /// `body` given the needle's value where it is mapped, checked against the needle's header
        /// (``PackFormat/needleValue(in:at:size:digest:)``), or why it is not there.
        func withValue<R>(_ body: (Result<UnsafeRawBufferPointer, PackFormat.NeedleFailure>) -> R) -> R {
            withPack { pack in
                body(
                    PackFormat.needleValue(in: pack, at: offset, size: size, digest: digest).map {
                        UnsafeRawBufferPointer(rebasing: pack[$0])
                    })
            }
        }
    }

    /// The value, checked against the needle's header (size and digest) but not rehashed:
    /// ``PackFormat/needle(in:at:size:digest:)`` over the readable part of the mapping.
    func read() -> ContentStore.ReadResult {
        switch self {
        case .needle(let needle):
            return needle.withPack {
                PackFormat.needle(in: $0, at: needle.offset, size: needle.size, digest: needle.digest)
            }
        case .missing:
            return .missing
        case .corrupt(let reason):
            return .corrupt(reason: reason)
        }
    }

    /// Whether the needle is there and its header repeats its size and digest, and, when
    /// `rehashing`, whether its bytes hash to that digest: checked as ``read()`` checks it, but
    /// hashed where they are mapped rather than copied out (a put that reuses the needle reads
    /// none of it when this process verified it before).
    func isSound(rehashing: Bool) -> Bool {
        guard case .needle(let needle) = self else { return false }
        return needle.withValue { value in
            guard case .success(let bytes) = value else { return false }
            return !rehashing || SHA256Hasher.hash(bytes) == needle.digest
        }
    }

    /// Copies the value into `destination` (exactly its size), checked as ``read()`` checks it;
    /// `nil` when it was copied, else the miss.
    func copy(into destination: UnsafeMutableRawBufferPointer) -> ContentStore.ReadResult? {
        switch self {
        case .needle(let needle):
            return needle.withValue { value in
                switch value {
                case .success(let bytes):
                    guard bytes.count == destination.count else { return .corrupt(reason: "a needle of another size") }
                    destination.copyMemory(from: bytes)
                    return nil
                case .failure(let failure):
                    return failure.result
                }
            }
        case .missing:
            return .missing
        case .corrupt(let reason):
            return .corrupt(reason: reason)
        }
    }
}
