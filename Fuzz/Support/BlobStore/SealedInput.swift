// The input of the harnesses whose file ends in a checksum (`SealedBytes`: PolicySnapshot,
// ChunkRecipe). Fuzz/README.md describes it.

@testable import BlobStore

/// A byte, then the file: when the byte is odd the file's last four bytes are replaced by the
/// checksum of the rest, so that the parser behind the checksum is reached from any bytes.
/// `nil` for an empty input.
func sealedInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8]? {
    guard size >= 1 else { return nil }
    let given = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    return data[0] & 1 == 1 ? SealedBytes.resealed(given) : given
}
