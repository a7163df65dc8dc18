/// A chunked value's recipe and where each of its chunks is stored, as a chunked put record and
/// a manifest carry it: the index takes the chunks' locations from here when the value's first
/// reference comes (docs/format.md, "Chunked values").
///
/// A class, so that a put record (which every write and replay copies) holds one reference here
/// rather than a recipe's hundred-odd bytes inline: with a struct, packed puts of 4 KiB measured
/// about 4 % slower (docs/benchmarks.md, "Large values, whole and chunked").
final class PlacedRecipe: Equatable, Sendable {
    let recipe: ChunkRecipe
    /// One per chunk, in the recipe's order: loose or packed, never chunked.
    let locations: [BlobLocation]

    static func == (left: PlacedRecipe, right: PlacedRecipe) -> Bool {
        left.recipe == right.recipe && left.locations == right.locations
    }

    init(_ recipe: ChunkRecipe, locations: [BlobLocation]) {
        precondition(locations.count == recipe.chunks.count, "one location per chunk")
        self.recipe = recipe
        self.locations = locations
    }

    /// `recipe:bytes location{count}`.
    func encode(into writer: inout ByteWriter) {
        writer.lengthPrefixed(recipe.encoded())
        for location in locations { location.encode(into: &writer) }
    }

    /// Reads what ``encode(into:)`` wrote for a value of `digest` and `size`
    /// (``readRecipe(_:digest:size:)``), and a location for each chunk that fits its size.
    static func decode(_ reader: inout ByteReader, digest: SHA256Digest, size: UInt64) throws(ByteReader.Failure)
        -> PlacedRecipe
    {
        let recipe = try readRecipe(&reader, digest: digest, size: size)
        var locations: [BlobLocation] = []
        locations.reserveCapacity(recipe.chunks.count)
        for chunk in recipe.chunks {
            locations.append(try BlobLocation.decode(&reader, size: UInt64(chunk.length), chunked: false))
        }
        return PlacedRecipe(recipe, locations: locations)
    }

    /// Reads a length-prefixed recipe of the value of `digest` and `size`: one that checks, of at
    /// least two chunks, none of which is the value itself (so no chunked value is its own chunk).
    static func readRecipe(_ reader: inout ByteReader, digest: SHA256Digest, size: UInt64) throws(ByteReader.Failure)
        -> ChunkRecipe
    {
        let bytes = try reader.lengthPrefixed(limit: JournalFormat.maxPayloadSize, what: "recipe length")
        guard let recipe = ChunkRecipe.decode(bytes) else { throw ByteReader.Failure(reason: "a damaged recipe") }
        guard recipe.digest == digest, UInt64(recipe.length) == size else {
            throw ByteReader.Failure(reason: "a recipe of another value")
        }
        guard recipe.chunks.count >= 2, !recipe.chunks.contains(where: { $0.digest == digest }) else {
            throw ByteReader.Failure(reason: "a recipe whose value is one of its chunks")
        }
        return recipe
    }
}
