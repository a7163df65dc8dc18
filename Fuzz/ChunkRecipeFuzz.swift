// libFuzzer harness for the chunked value's recipe decoder (`ChunkRecipe`, docs/design.md,
// "Content-defined chunking"). Build and run with `Fuzz/run.sh ChunkRecipe 60`; Fuzz/README.md
// lists the properties.
//
// The input is a byte, then the recipe's bytes. When the first byte is odd, the recipe's last
// four bytes are replaced by the checksum of the rest, so that the parsing past the checksum is
// reached from any bytes.

@testable import BlobStore
@testable import BlobStoreFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let bytes = sealedInput(data, size) else { return 0 }
    // (a) Decoding never traps, whatever the bytes.
    guard let recipe = ChunkRecipe.decode(bytes) else { return 0 }
    // (b) A recipe has one encoding: what is accepted is written back byte for byte.
    check(recipe.encoded() == bytes, bytes, "a decoded recipe encodes to other bytes", kind: "recipe")
    // (c) It describes a value the chunker could have cut: at least one chunk, each within the
    // parameters' bounds (all but the last at least the minimum). (That the lengths add up to the
    // value's is (b): the length written back is their sum.)
    let lengths = recipe.chunks.map(\.length)
    check(
        !lengths.isEmpty
            && lengths.allSatisfy { $0 > 0 && $0 <= recipe.parameters.maximum }
            && lengths.dropLast().allSatisfy { $0 >= recipe.parameters.minimum },
        bytes, "a chunk outside the bounds", kind: "recipe")
    // (d) Every byte of the value is in the chunk that chunkIndices(covering:) names for it.
    for offset in [0, recipe.length / 2, recipe.length - 1] {
        let index = recipe.chunkIndices(covering: offset..<(offset + 1))
        check(
            index.count == 1 && recipe.offsets[index.lowerBound] <= offset && offset < recipe.offsets[index.upperBound],
            bytes, "the wrong chunk for byte \(offset)", kind: "recipe")
    }
    return 0
}
