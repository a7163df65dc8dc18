import BlobStore

/// The lines `blobstore journal` prints for people: one per journal record and manifest entry,
/// each field named, keys quoted with control characters escaped (a key that is not UTF-8 in
/// hex), digests in full so that they can be searched for.
enum DumpText {
    /// `journal /s/journal-3: generation 3, format 2, 216 bytes`; the manifest's line has no
    /// generation (the same). `format unknown` when the header cannot be read.
    static func header(_ name: String, _ file: StoreDump.File, generation: UInt64? = nil) -> String {
        let parts = [
            generation.map { "generation \($0)" }, "format \(file.version.map(String.init) ?? "unknown")",
            Runner.count(file.byteCount, "byte", "bytes"),
        ]
        return "\(name) \(file.path): \(parts.compactMap { $0 }.joined(separator: ", "))\n"
    }

    /// `@24 put (72 bytes): key 'k', digest …, size 6, pack 1 at 24, created …`.
    static func record(_ record: StoreDump.Record) -> String {
        let (type, fields): (String, [String])
        switch record.change {
        case .put(let entry): (type, fields) = ("put", self.fields(of: entry))
        case .access(let accesses):
            (type, fields) = ("access", accesses.map { "key \(key($0.key)) at \(time($0.time))" })
        case .remove(let key, let digest):
            (type, fields) = ("remove", ["key \(self.key(key))"] + (digest.map { ["if digest \($0.hex)"] } ?? []))
        case .evict(let key, let digest): (type, fields) = ("evict", ["key \(self.key(key))", "digest \(digest.hex)"])
        case .relocate(let digest, let size, let from, let to):
            (type, fields) = (
                "relocate", ["digest \(digest.hex)", "size \(size)", "from \(place(from))", "to \(place(to))"]
            )
        }
        let length = Runner.count(record.byteCount, "byte", "bytes")
        return "@\(record.offset) \(type) (\(length)): \(fields.joined(separator: ", "))\n"
    }

    /// `key 'k', digest …, size 6, loose, created …[, last access …][, expires …][, metadata 12 bytes]`.
    static func entry(_ entry: StoreDump.Entry) -> String {
        fields(of: entry).joined(separator: ", ") + "\n"
    }

    /// How the journal ended, and what opening the store does about it.
    static func journalEnd(_ ending: StoreDump.JournalEnding, records: Int) -> String {
        let read = Runner.count(records, "record", "records")
        switch ending {
        case .clean:
            return "end of journal: clean, \(read)\n"
        case .tornTail(let offset, let count):
            return "end of journal: \(read), then a torn tail of \(Runner.count(count, "byte", "bytes")) at offset "
                + "\(offset): an interrupted write, or one in progress; opening the store truncates it, and "
                + "nothing acknowledged is lost\n"
        case .damaged(let offset, let count, let reason):
            return "end of journal: \(read), then DAMAGE at offset \(offset) (\(reason)): "
                + "\(Runner.count(count, "byte", "bytes")) from there are not read; opening the store drops "
                + "them and saves them in quarantine/\n"
        case .unreadable(let reason):
            return "end of journal: UNREADABLE: \(reason)\n"
        }
    }

    /// How the manifest read.
    static func manifestEnd(damage: String?, entries: Int) -> String {
        let read = Runner.count(entries, "entry", "entries")
        guard let damage else { return "end of manifest: whole, \(read)\n" }
        return "end of manifest: \(read), then DAMAGE: \(damage); opening the store keeps the entries that "
            + "can be read and rewrites the manifest from them\n"
    }

    // MARK: - Fields

    private static func fields(of entry: StoreDump.Entry) -> [String] {
        var fields = [
            "key \(key(entry.key))", "digest \(entry.digest.hex)", "size \(entry.size)", location(entry.location),
            "created \(time(entry.created))",
        ]
        if let lastAccess = entry.lastAccess { fields.append("last access \(time(lastAccess))") }
        if let expires = entry.expires { fields.append("expires \(time(expires))") }
        if !entry.metadata.isEmpty { fields.append("metadata \(Runner.count(entry.metadata.count, "byte", "bytes"))") }
        return fields
    }

    /// `'k'` with control characters escaped (`\u{a}`), or `0x6bff` for bytes that are not UTF-8.
    static func key(_ key: StoreKey) -> String {
        guard let text = String(validating: key.bytes, as: UTF8.self) else {
            return "0x" + key.bytes.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined()
        }
        var escaped = ""
        for scalar in text.unicodeScalars {
            let isControl = scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value)
            escaped += isControl ? "\\u{" + String(scalar.value, radix: 16) + "}" : String(scalar)
        }
        return "'" + escaped + "'"
    }

    private static func location(_ location: StoreDump.Location) -> String {
        switch location {
        case .loose: "loose"
        case .packed(let place): self.place(place)
        case .chunked: "chunked"
        }
    }

    private static func place(_ place: StoreDump.PackPlace) -> String {
        "pack \(place.pack) at \(place.offset)"
    }

    private static func time(_ milliseconds: Int64) -> String {
        Timestamp.iso8601(milliseconds: milliseconds)
    }
}
