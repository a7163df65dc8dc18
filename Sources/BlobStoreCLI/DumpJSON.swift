import BlobStore
import Foundation

/// The lines `blobstore journal --json` prints: one JSON object per line (keys sorted), whose
/// `kind` is `journal`, `record`, `journalEnd`, `manifest`, `entry` or `manifestEnd`
/// (docs/cli.md, "journal"). Absent values are `null`, never left out, so that every line of a
/// kind has the same fields.
enum DumpJSON {
    /// `{"kind": "journal" or "manifest", "path", "generation", "version", "bytes"}`; `version` is
    /// `null` when the header cannot be read.
    static func header(_ kind: String, _ file: StoreDump.File, generation: UInt64) -> String {
        line([
            "kind": kind, "path": file.path, "generation": generation, "version": optional(file.version),
            "bytes": file.byteCount,
        ])
    }

    /// `{"kind": "record", "offset", "bytes", "type", …}`: the fields of the record's type.
    static func record(_ record: StoreDump.Record) -> String {
        var object: [String: Any] = ["kind": "record", "offset": record.offset, "bytes": record.byteCount]
        switch record.change {
        case .put(let entry):
            object["type"] = "put"
            object.merge(fields(of: entry)) { _, new in new }
        case .access(let accesses):
            object["type"] = "access"
            object["accesses"] = accesses.map { ["key": $0.key.string, "time": time($0.time)] }
        case .remove(let key, let digest):
            object["type"] = "remove"
            object["key"] = key.string
            object["ifDigest"] = optional(digest?.hex)
        case .evict(let key, let digest):
            object["type"] = "evict"
            object["key"] = key.string
            object["digest"] = digest.hex
        case .relocate(let digest, let size, let from, let to):
            object["type"] = "relocate"
            object["digest"] = digest.hex
            object["size"] = size
            object["from"] = place(from)
            object["to"] = place(to)
        }
        return line(object)
    }

    /// `{"kind": "entry", "key", "digest", "size", "created", "lastAccess", "expires", "metadata", "pack"}`.
    static func entry(_ entry: StoreDump.Entry) -> String {
        line(fields(of: entry).merging(["kind": "entry"]) { _, new in new })
    }

    /// `{"kind": "journalEnd", "records", "ending", "offset", "bytes", "reason"}`; `ending` is
    /// `clean`, `tornTail`, `damaged` or `unreadable`.
    static func journalEnd(_ ending: StoreDump.JournalEnding, records: Int) -> String {
        let (name, offset, count, reason): (String, Int?, Int?, String?)
        switch ending {
        case .clean: (name, offset, count, reason) = ("clean", nil, nil, nil)
        case .tornTail(let at, let bytes): (name, offset, count, reason) = ("tornTail", at, bytes, nil)
        case .damaged(let at, let bytes, let why): (name, offset, count, reason) = ("damaged", at, bytes, why)
        case .unreadable(let why): (name, offset, count, reason) = ("unreadable", nil, nil, why)
        }
        return line([
            "kind": "journalEnd", "records": records, "ending": name, "offset": optional(offset),
            "bytes": optional(count), "reason": optional(reason),
        ])
    }

    /// `{"kind": "manifestEnd", "entries", "damage"}`.
    static func manifestEnd(damage: String?, entries: Int) -> String {
        line(["kind": "manifestEnd", "entries": entries, "damage": optional(damage)])
    }

    // MARK: - Fields

    /// A key's fields; `pack` is `{"pack", "offset"}` for a needle, `null` for a loose or chunked
    /// blob, `chunked` says whether the value is chunks, and `metadata` is base64.
    private static func fields(of entry: StoreDump.Entry) -> [String: Any] {
        let pack: Any
        switch entry.location {
        case .loose, .chunked: pack = NSNull()
        case .packed(let needle): pack = place(needle)
        }
        return [
            "chunked": entry.location == .chunked,
            "key": entry.key.string, "digest": entry.digest.hex, "size": entry.size, "created": time(entry.created),
            "lastAccess": optional(entry.lastAccess.map(time)), "expires": optional(entry.expires.map(time)),
            "metadata": Data(entry.metadata).base64EncodedString(), "pack": pack,
        ]
    }

    private static func place(_ place: StoreDump.PackPlace) -> [String: Any] {
        ["pack": place.pack, "offset": place.offset]
    }

    private static func time(_ milliseconds: Int64) -> String {
        Timestamp.iso8601(milliseconds: milliseconds)
    }

    private static func optional(_ value: Any?) -> Any {
        value ?? NSNull()
    }

    /// `object` on one line, keys sorted, slashes not escaped.
    private static func line(_ object: [String: Any]) -> String {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { preconditionFailure("a dump line holds only strings, numbers, null, arrays and objects") }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
