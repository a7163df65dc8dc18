// Writes the seed corpora in Fuzz/Corpus/ with the library's own record encoder and manifest
// writer (so the seeds track the format) and the harnesses' format-1 manifest encoder
// (Fuzz/Support/BlobStore/ManifestFormat1.swift: the library no longer writes format 1).
// Built and run by Fuzz/make-seeds.sh: `make-seeds <Fuzz/Corpus/JournalReader>`.
// The TraceReader seeds are traces from BlobStoreTraces' generator and writers, each after the
// harness's format byte (0: oracleGeneral, 1: CSV).

import BlobStoreTraces
import Glibc

@testable import BlobStore
@testable import BlobStoreFuzzSupport

func write(_ bytes: [UInt8], _ name: String) {
    let file = fopen(name, "wb")!
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}

func journal(_ records: [JournalRecord]) -> [UInt8] {
    var writer = ByteWriter()
    for record in records { record.frame(into: &writer) }
    return writer.bytes
}

/// The chunked put of docs/format.md's worked example: 100 bytes `a` then 100 bytes `b`, cut
/// into those halves, their needles at offsets 65 and 201 of pack 1.
let chunkedPut: JournalRecord.PutRecord = {
    let halves = ([UInt8](repeating: 0x61, count: 100), [UInt8](repeating: 0x62, count: 100))
    let recipe = ChunkRecipe(
        parameters: ChunkingParameters(minimum: 64, average: 256, maximum: 1024)!,
        digest: SHA256Hasher.hash(halves.0 + halves.1),
        chunks: [
            .init(digest: SHA256Hasher.hash(halves.0), length: 100),
            .init(digest: SHA256Hasher.hash(halves.1), length: 100),
        ])
    return JournalRecord.PutRecord(
        key: "v", digest: recipe.digest, size: 200, created: 1_700_000_000_000, expires: nil, metadata: [],
        location: .chunked,
        recipe: PlacedRecipe(
            recipe,
            locations: [.packed(PackLocation(pack: 1, offset: 65)), .packed(PackLocation(pack: 1, offset: 201))]))
}()

@main enum MakeSeeds {
    static func main() {
        let directory = CommandLine.arguments[1]
        let digestA = SHA256Digest(bytes: (0..<32).map { UInt8($0) })!
        let digestB = SHA256Digest(bytes: (0..<32).map { UInt8(255 - $0) })!
        let put = JournalRecord.put(
            .init(
                key: "https://example.com/a.png", digest: digestA, size: 1234, created: 1_700_000_000_000,
                expires: nil, metadata: []))
        let mixed: [JournalRecord] = [
            put,
            .access([.init(key: "https://example.com/a.png", time: 1_700_000_000_500), .init(key: "b", time: -5)]),
            .put(
                .init(
                    key: StoreKey(bytes: [0, 0xff, 0x2f]), digest: digestB, size: UInt64.max, created: -1,
                    expires: 1_800_000_000_000, metadata: Array("content-type: image/png".utf8))),
            .remove(key: "gone", digest: nil),
            .remove(key: "repaired", digest: digestB),
            .evict(key: "old", digest: digestA),
        ]
        let valid = journal(mixed)
        write(journal([put]), "\(directory)/valid-single-put.journal")
        write(journal([put, .put(chunkedPut)]), "\(directory)/valid-chunked-put.journal")
        write(valid, "\(directory)/valid-all-record-types.journal")
        // The writer died mid-append: the last record is cut off.
        write(Array(valid.dropLast(7)), "\(directory)/torn-tail-cut-record.journal")
        // The file was extended with zeros (preallocation) past the last record.
        write(valid + [UInt8](repeating: 0, count: 64), "\(directory)/torn-tail-zero-fill.journal")
        // A bit flipped inside the second record's payload: checksum mismatch.
        var flipped = valid
        flipped[journal([put]).count + JournalFormat.recordHeaderSize + 4] ^= 0x10
        write(flipped, "\(directory)/corrupt-checksum.journal")
        // After one good record, a header (with a valid header checksum) claiming a length far
        // over the limit; and one whose length field was damaged (header checksum mismatch).
        let huge = JournalRecord.header(length: 0x7fff_ffff, type: 1, payloadCRC: 0) + [1, 2, 3, 4]
        write(journal([put]) + huge, "\(directory)/corrupt-length.journal")
        var damagedLength = valid
        damagedLength[journal([put]).count + 2] ^= 0x01
        write(damagedLength, "\(directory)/corrupt-damaged-length-field.journal")

        // Recipes for the JournalRecord harness (see RecipeReader): a few bytes per record kind.
        let recipes = "\(directory)/../JournalRecord"
        write([0, 3, 0x61, 0x62, 0x63, 7, 2, 0xe8, 0x03, 1, 0xff, 1, 1, 0x05, 0, 0], "\(recipes)/put.recipe")
        write([1, 2, 1, 0x6b, 1, 0x7f, 0, 8, 1, 2, 3, 4, 5, 6, 7, 0x80], "\(recipes)/access.recipe")
        write([2, 1, 0x6b, 1, 9, 3, 0, 0x2a], "\(recipes)/remove-and-evict.recipe")

        // Format-1 manifests (the bytes after the 24-byte header) for the ManifestReader harness.
        let manifests = "\(directory)/../ManifestReader"
        func manifest(_ entries: [ManifestEntry]) -> [UInt8] { ManifestFormat1.records(entries) }
        let entries = [
            ManifestEntry(
                key: "https://example.com/a.png",
                entry: IndexEntry(
                    digest: digestA, size: 1234, created: 1_700_000_000_000, lastAccess: 1_700_000_000_500,
                    expires: nil, metadata: [])),
            ManifestEntry(
                key: StoreKey(bytes: [0, 0xff, 0x2f]),
                entry: IndexEntry(
                    digest: digestB, size: UInt64.max, created: -1, lastAccess: 0, expires: 1_800_000_000_000,
                    metadata: Array("content-type: image/png".utf8))),
        ]
        let whole = manifest(entries)
        write(manifest([]), "\(manifests)/valid-empty.manifest")
        write(whole, "\(manifests)/valid-two-entries.manifest")
        // A compaction that died mid-write: the end record is missing.
        write(Array(whole.dropLast(5)), "\(manifests)/damaged-cut.manifest")
        var flippedManifest = whole
        flippedManifest[JournalFormat.recordHeaderSize + 6] ^= 0x04
        write(flippedManifest, "\(manifests)/damaged-checksum.manifest")

        // Whole format-2 manifest files (header included) for the ManifestTable harness.
        let tables = "\(directory)/../ManifestTable"
        func packed(_ pack: UInt32, _ offset: UInt64) -> BlobLocation {
            .packed(PackLocation(pack: pack, offset: offset))
        }
        write(ManifestWriter.encode(generation: 2, entries: []), "\(tables)/valid-empty.manifest")
        // Three entries, two sharing a loose blob and one a needle in pack 1; pack 2 is the newest
        // pack, with no live needle.
        let few = ManifestWriter.encode(
            generation: 3,
            entries: [
                ManifestEntry(
                    key: "https://example.com/a.png",
                    entry: IndexEntry(
                        digest: digestA, size: 1234, created: 1_700_000_000_000, lastAccess: 1_700_000_000_500,
                        expires: nil, metadata: [])),
                ManifestEntry(
                    key: StoreKey(bytes: [0, 0xff, 0x2f]),
                    entry: IndexEntry(
                        digest: digestB, size: 5, created: -1, lastAccess: 0, expires: 1_800_000_000_000,
                        metadata: Array("content-type: image/png".utf8)), location: packed(1, 24)),
                ManifestEntry(
                    key: "copy-of-a",
                    entry: IndexEntry(
                        digest: digestA, size: 1234, created: 1_700_000_001_000, lastAccess: 1_700_000_001_000,
                        expires: nil, metadata: [1, 2, 3])),
            ],
            packs: ManifestPackTable(nextPack: 3, packs: [.init(number: 1, end: 65), .init(number: 2, end: 24)]))
        write(few, "\(tables)/valid-few-entries-one-packed.manifest")
        // 100 entries over 40 blobs (every fifth blob packed, in pack 1 or 4): five key blocks
        // and two blob blocks.
        let digests = (0..<40).map { blob in
            SHA256Digest(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ blob &* 13) })!
        }
        let many = (0..<100).map { index in
            let blob = index % 40
            return ManifestEntry(
                key: StoreKey(bytes: Array("k\(index)".utf8)),
                entry: IndexEntry(
                    digest: digests[blob], size: UInt64(blob * 100 + 1), created: Int64(index) * 1000,
                    lastAccess: Int64(index) * 1000 + 7, expires: index % 7 == 0 ? Int64(index) * 5000 : nil,
                    metadata: index % 9 == 0 ? Array("m\(index)".utf8) : []),
                location: blob % 5 == 0 ? packed(blob < 20 ? 1 : 4, 24 + UInt64(blob) * 4096) : .loose)
        }
        write(
            ManifestWriter.encode(
                generation: 9, entries: many,
                packs: ManifestPackTable(
                    nextPack: 5, packs: [.init(number: 1, end: 1 << 20), .init(number: 4, end: 24)])),
            "\(tables)/valid-many-entries.manifest")
        // A chunked value (docs/format.md, "Chunked values") under two keys, its chunks' needles in
        // pack 1, one of them also a key's own value.
        let chunkedEntry = { (key: StoreKey) in
            ManifestEntry(
                key: key,
                entry: IndexEntry(
                    digest: chunkedPut.digest, size: chunkedPut.size, created: 1_700_000_000_000,
                    lastAccess: 1_700_000_000_000, expires: nil, metadata: []), location: .chunked)
        }
        let half = chunkedPut.recipe!.recipe.chunks[0]
        write(
            ManifestWriter.encode(
                generation: 4,
                entries: [
                    chunkedEntry("v"), chunkedEntry("w"),
                    ManifestEntry(
                        key: "half",
                        entry: IndexEntry(
                            digest: half.digest, size: UInt64(half.length), created: 5, lastAccess: 6, expires: nil,
                            metadata: []), location: packed(1, 65)),
                ],
                recipes: [chunkedPut.recipe!],
                packs: ManifestPackTable(nextPack: 2, packs: [.init(number: 1, end: 337)])),
            "\(tables)/valid-chunked-value.manifest")
        // A bit flipped inside the key block's payload: it opens, and the block fails its check.
        var damagedTable = few
        damagedTable[JournalFormat.fileHeaderSize + JournalFormat.recordHeaderSize + 3] ^= 0x08
        write(damagedTable, "\(tables)/damaged-key-block.manifest")

        writeTraceSeeds("\(directory)/../TraceReader")
        writePolicySeeds("\(directory)/../PolicySnapshot")
        writeRecipeSeeds("\(directory)/../ChunkRecipe")
    }
}

/// Seeds for the PolicySnapshot harness: the snapshots of a SIEVE and an S3-FIFO queue the store
/// kept, each as written (first byte 0: taken as it is) and with a flipped bit whose checksum the
/// harness recomputes (first byte 1).
func writePolicySeeds(_ directory: String) {
    var sieve = PolicyState(EvictionLimits(maxEntries: 8, policy: .sieve))!
    var s3fifo = PolicyState(EvictionLimits(capacity: 40_000, policy: .s3fifo))!
    for index in 0..<12 {
        let key = StoreKey("https://example.com/\(index)")
        for state in [0, 1] {
            if state == 0 { sieve.put(key, weight: 1) } else { s3fifo.put(key, weight: 4096) }
        }
        if index % 3 == 0 {
            sieve.access(key)
            s3fifo.access(key)
        }
        while sieve.count > 8 { _ = sieve.nextVictim(sparing: nil) }
        while s3fifo.count > 9 { _ = s3fifo.nextVictim(sparing: nil) }
    }
    for (name, state) in [("sieve", sieve), ("s3fifo", s3fifo)] {
        let bytes = state.snapshot(generation: 7).encoded()
        write([0] + bytes, "\(directory)/\(name).policy")
        var flipped = bytes
        flipped[30] ^= 0x01
        write([1] + flipped, "\(directory)/\(name)-flipped.policy")
    }
}

/// Seeds for the ChunkRecipe harness: the recipe of 20,000 seeded bytes cut with a 1 KiB
/// average, as written (first byte 0) and with a chunk's length changed and the checksum
/// recomputed by the harness (first byte 1), and the recipe of a value of one short chunk.
func writeRecipeSeeds(_ directory: String) {
    let value = SplitMix64.bytes(20_000, seed: 3)
    let parameters = ChunkingParameters(average: 1024)!
    let recipe = value.withUnsafeBytes { ChunkRecipe.make(of: $0, parameters) }
    let bytes = recipe.encoded()
    write([0] + bytes, "\(directory)/twenty-chunks.recipe")
    var changed = bytes
    changed[8 + 4 + 1 + 6 + 8 + 32 + 1 + 32] ^= 0x01
    write([1] + changed, "\(directory)/twenty-chunks-length-changed.recipe")
    let short = Array(value.prefix(100)).withUnsafeBytes { ChunkRecipe.make(of: $0, parameters) }
    write([0] + short.encoded(), "\(directory)/one-chunk.recipe")
}

/// Seeds for the TraceReader harness: a small generated trace in both formats, and the edges
/// of each (a cut record; CRLF lines, limits, size 0, a size over 32 bits, a line of two fields).
func writeTraceSeeds(_ traces: String) {
    let parameters = TraceParameters(
        objects: 20, requests: 30, seed: 1, sizes: .uniform(1...100_000), scanEvery: 10, scanLength: 2)
    let trace = try! TraceGenerator.zipfScan(alpha: 0.8, parameters)
    let binary = try! OracleGeneralFormat.encode(trace)
    write([0] + binary, "\(traces)/oracle-zipf-scan.bin")
    write([0] + binary.dropLast(5), "\(traces)/oracle-cut-record.bin")
    write([1] + CSVTraceFormat.encode(trace), "\(traces)/csv-zipf-scan.csv")
    let texts = [
        "csv-crlf-no-final-break": "time,id,size\r\n0,42,4096\r\n1,7,0",
        "csv-limits": "time,id,size\n18446744073709551615,18446744073709551615,4294967295\n0,0,0\n",
        "csv-size-over-32-bits": "time,id,size\n0,1,4294967296\n",
        "csv-two-fields": "time,id,size\n0,1,2\n3,4\n",
    ]
    for (name, text) in texts { write([1] + Array(text.utf8), "\(traces)/\(name).csv") }
}
