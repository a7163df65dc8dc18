// Properties of ManifestReader.read (format-1 manifests), shared by the ManifestReader harness.
// Fuzz/README.md lists them.

/// Reads `bytes` (a format-1 manifest without its header) and returns the entries handed over
/// and the result.
@testable import BlobStore

func readManifest(_ bytes: [UInt8]) -> ([ManifestEntry], ManifestReader.Result) {
    var entries: [ManifestEntry] = []
    let result = bytes.withUnsafeBytes { ManifestReader.read($0) { entries.append($0) } }
    return (entries, result)
}

/// Checks everything ``ManifestReader/read(_:_:)`` promises about `bytes`, trapping with a
/// replayable file when a promise is broken.
func checkManifestProperties(_ bytes: [UInt8], what: String) {
    let (entries, result) = readManifest(bytes)
    // (a) The count reported is the number of entries handed over.
    check(
        result.entries == entries.count, bytes,
        "\(what): result counts \(result.entries), \(entries.count) handed over", kind: "manifest")
    guard result.damage == nil else { return }
    // (b) A whole manifest ends with its end record, and every byte was accepted.
    check(!bytes.isEmpty, bytes, "\(what): an empty manifest read as whole", kind: "manifest")
    // (c) The accepted bytes are exactly the canonical encoding: the entries records' payloads,
    //     without their count prefixes, are the entries re-encoded (format 1, no location) one
    //     after the other.
    var accepted: [UInt8] = []
    var records = 0
    let scan = bytes.withUnsafeBytes { buffer in
        JournalReader.scanFrames(buffer) { type, payload, _ throws(ByteReader.Failure) in
            guard type == ManifestFormat.entriesType else { return }
            var reader = ByteReader(payload)
            _ = try reader.varint()
            accepted += Array(payload[reader.position...])
            records += 1
        }
    }
    check(scan.ending == .clean, bytes, "\(what): read as whole, but the frames end \(scan.ending)", kind: "manifest")
    var reencoded = ByteWriter()
    for entry in entries { ManifestFormat1.encode(entry, into: &reencoded) }
    check(
        reencoded.bytes == accepted, bytes,
        "\(what): \(entries.count) entries in \(records) records re-encode to other bytes", kind: "manifest")
    // (d) Writing the entries again (format 1) gives a manifest that reads back to the same
    //     entries.
    let rewritten = ManifestFormat1.records(entries)
    let (again, againResult) = readManifest(rewritten)
    check(
        againResult.damage == nil && again == entries, bytes, "\(what): the rewritten manifest reads back differently",
        kind: "manifest")
    // (e) Every strict prefix is damage (the end record is missing or cut), and hands over only
    //     entries the whole manifest has, in the same order.
    for cut in Set([0, bytes.count / 2, bytes.count - 1]) where cut < bytes.count {
        let (prefixEntries, prefixResult) = readManifest(Array(bytes[..<cut]))
        check(
            prefixResult.damage != nil, bytes, "\(what): the \(cut)-byte prefix reads as a whole manifest",
            kind: "manifest")
        check(
            Array(entries.prefix(prefixEntries.count)) == prefixEntries, bytes,
            "\(what): the \(cut)-byte prefix hands over other entries", kind: "manifest")
    }
}
