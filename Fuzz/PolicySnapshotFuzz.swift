// libFuzzer harness for the eviction policy's snapshot decoder (`policy-<gen>`,
// docs/format.md). Build and run with `Fuzz/run.sh PolicySnapshot 60`; Fuzz/README.md lists
// the properties.
//
// The input is a byte, then the file's bytes. When the first byte is odd, the file's last four
// bytes are replaced by the checksum of the rest, so that the parsing past the checksum is
// reached from any bytes.

@testable import BlobStore
@testable import BlobStoreFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let bytes = sealedInput(data, size) else { return 0 }
    // (a) Decoding never traps, whatever the bytes.
    guard let snapshot = PolicySnapshot.decode(bytes) else { return 0 }
    // (b) A snapshot has one encoding: what is accepted is written back byte for byte.
    check(snapshot.encoded() == bytes, bytes, "a decoded snapshot encodes to other bytes", kind: "policy")
    // (c) It decodes again to the same snapshot.
    check(
        PolicySnapshot.decode(snapshot.encoded()) == snapshot, bytes, "a snapshot does not round-trip", kind: "policy")
    // (d) Its lists are the ones its policy has.
    check(snapshot.lists.count == (snapshot.policy == .sieve ? 1 : 2), bytes, "wrong list count", kind: "policy")
    return 0
}
