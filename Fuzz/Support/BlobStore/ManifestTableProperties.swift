// Properties of ManifestTable (format-2 manifests, read in place), shared by the ManifestTable
// harness. Fuzz/README.md lists them.

/// Opens `bytes` (a whole manifest file, header included) as a table, or `nil` when opening
/// throws.
@testable import BlobStore

func openManifestTable(_ bytes: [UInt8]) -> ManifestTable? {
    try? ManifestTable(FileMapping(copying: bytes))
}

/// `bytes` (a whole format-2 manifest) with both checksums of every frame between the header and
/// the trailer rewritten to be correct (``repairingChecksums(_:in:)``), and the trailer's CRC
/// too: the masked CRC-32C of the trailer's first 16 bytes, in its last 4. Random mutations
/// almost never carry valid CRCs, so without this they would never reach the index and block
/// decoders.
func repairingManifestChecksums(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.count >= JournalFormat.fileHeaderSize + ManifestFormat.trailerSize else { return bytes }
    let trailerStart = bytes.count - ManifestFormat.trailerSize
    var repaired = repairingChecksums(bytes, in: JournalFormat.fileHeaderSize..<trailerStart)
    let crc = repaired.withUnsafeBytes {
        CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[trailerStart..<(trailerStart + 16)]))
    }
    let masked = CRC32C.mask(crc)
    for index in 0..<4 { repaired[trailerStart + 16 + index] = UInt8(truncatingIfNeeded: masked >> UInt32(8 * index)) }
    return repaired
}

/// Checks everything ``ManifestTable`` promises about `bytes` (a whole manifest file), trapping
/// with a replayable manifest file when a promise is broken.
///
/// - Parameters:
///   - bytes: The manifest file, header included, exactly as it would be on disk.
///   - what: Names the bytes in a failure message, e.g. `"input"` or `"crc-repaired input"`.
func checkManifestTableProperties(_ bytes: [UInt8], what: String) {
    // (a) Opening never traps: it returns a table or throws.
    guard let table = openManifestTable(bytes) else { return }

    // (b) What a scan yields, a lookup finds, with an equal value, unless some block is damaged.
    var entries: [ManifestEntry] = []
    table.forEachEntry { entries.append($0) }
    var blobs: [ManifestBlob] = []
    table.forEachBlob { blobs.append($0) }
    for entry in entries {
        let found = table.entry(for: entry.key)
        check(
            found == entry || table.damage != nil, bytes,
            "\(what): the scan yields \(entry), entry(for:) finds \(String(describing: found)), and no damage is noted",
            kind: "manifest")
    }
    for blob in blobs {
        // A lookup decodes a chunked value's recipe only when asked for it.
        let found = table.blob(blob.digest, recipe: true)
        var bare = blob
        bare.recipe = nil
        let foundBare = table.blob(blob.digest)
        check(
            (found == blob && foundBare == bare) || table.damage != nil, bytes,
            "\(what): the scan yields \(blob), blob(_:recipe:) finds \(String(describing: found)) and "
                + "\(String(describing: foundBare)) without the recipe, and no damage is noted",
            kind: "manifest")
    }

    // (c) A manifest that checks whole holds what the writer writes for its entries, the recipes
    //     of its chunked values and its pack table: the rewrite opens, checks whole, and scans to the same entries, blobs,
    //     totals and packs. (Not the same bytes: where blocks end is the writer's choice, and a
    //     reader accepts any partition the index describes.)
    guard table.check() == nil else {
        // (d) is about whole manifests only: a damaged one may well have a whole prefix.
        return
    }
    let packs = ManifestPackTable(
        nextPack: table.nextPack, packs: table.packs.map { .init(number: $0.number, end: $0.usage.end) })
    let header = bytes.withUnsafeBytes { try? JournalHeader(parsing: $0, magic: ManifestFormat.magic) }
    // The recipes of its chunked values, each chunk where the blob blocks say it is.
    let locations = Dictionary(blobs.map { ($0.digest, $0.location) }, uniquingKeysWith: { first, _ in first })
    let recipes = blobs.compactMap { blob in
        blob.recipe.map { PlacedRecipe($0, locations: $0.chunks.map { locations[$0.digest] ?? .loose }) }
    }
    let rewritten = ManifestWriter.encode(
        generation: header?.generation ?? 0, entries: entries, recipes: recipes, packs: packs)
    let again = openManifestTable(rewritten)
    var againEntries: [ManifestEntry] = []
    var againBlobs: [ManifestBlob] = []
    again?.forEachEntry { againEntries.append($0) }
    again?.forEachBlob { againBlobs.append($0) }
    let same =
        again != nil && again!.check() == nil && againEntries == entries && againBlobs == blobs
        && again!.totals == table.totals && again!.nextPack == table.nextPack
        && again!.packs.map(\.number) == table.packs.map(\.number)
        && again!.packs.map(\.usage) == table.packs.map(\.usage)
    check(
        same, bytes,
        "\(what): check() finds no damage, but the writer's rewrite of its \(entries.count) entries and \(packs.packs.count) packs reads differently: \(differences(bytes, rewritten, table: table))",
        kind: "manifest")

    // (d) Every strict prefix of a whole manifest fails to open, or is found damaged.
    for cut in Set([0, bytes.count / 2, bytes.count - 1]) where cut < bytes.count {
        let prefix = Array(bytes[..<cut])
        if let prefixTable = openManifestTable(prefix) {
            check(
                prefixTable.check() != nil, bytes,
                "\(what): the \(cut)-byte prefix opens and check() finds no damage", kind: "manifest")
        }
    }
}

/// Where `rewritten` (the writer's output) first differs from `bytes`, and how the two tables'
/// index fields compare, for a failure message.
private func differences(_ bytes: [UInt8], _ rewritten: [UInt8], table: ManifestTable) -> String {
    let start = JournalFormat.fileHeaderSize
    var first = start
    while first < min(bytes.count, rewritten.count), bytes[first] == rewritten[first] { first += 1 }
    var report = "the input is \(bytes.count) bytes, the rewrite \(rewritten.count); they differ from byte \(first)"
    if let again = openManifestTable(rewritten) {
        if again.totals != table.totals { report += "; totals \(table.totals), rewritten \(again.totals)" }
        if again.nextPack != table.nextPack { report += "; next pack \(table.nextPack), rewritten \(again.nextPack)" }
        let packs = table.packs.map { "\($0.number): end \($0.usage.end) live \($0.usage.live)" }
        let rewrittenPacks = again.packs.map { "\($0.number): end \($0.usage.end) live \($0.usage.live)" }
        if packs != rewrittenPacks { report += "; packs \(packs), rewritten \(rewrittenPacks)" }
        var blobs: [ManifestBlob] = []
        table.forEachBlob { blobs.append($0) }
        var rewrittenBlobs: [ManifestBlob] = []
        again.forEachBlob { rewrittenBlobs.append($0) }
        if blobs != rewrittenBlobs { report += "; blobs \(blobs), rewritten \(rewrittenBlobs)" }
    }
    return report + "; rewrite: \(hex(rewritten))"
}
