import BlobStore
import Foundation

/// `blobstore ls [--json]`: its description, its value, and its run below.
struct ListCommand: SubcommandValue {
    /// `--json`: print a JSON array of entries.
    var json = false

    static let spec = CommandSpec<ListCommand>(
        .ls,
        abstract: "List the stored entries.",
        discussion: "Each line is '<digest>  <size>  <key>': the SHA-256 in hex, the size in bytes and the "
            + "key's bytes, separated by two spaces. Use --json for keys that contain newlines.",
        options: [.flag("--json", help: "Print a JSON array of entries.", \.json)])

    func run(in runner: Runner) throws -> Int32 { try runner.list(self) }
}

extension Runner {
    /// `ls [--json]`: one `<digest>  <size>  <key>` line per entry (the key's raw bytes), or a
    /// JSON array.
    func list(_ command: ListCommand) throws -> Int32 {
        let entries = try withStore(creating: false) { store in try store.entries() }
        if command.json {
            try output.writeJSON(entries.map(ListedEntry.init))
        } else {
            var text = Data()
            for entry in entries {
                text.append(contentsOf: "\(entry.digest.hex)  \(entry.size)  ".utf8)
                text.append(contentsOf: entry.key.bytes)
                text.append(UInt8(ascii: "\n"))
            }
            try output.write(text)
        }
        return ExitCode.success
    }
}

/// One element of `ls --json`. Dates are ISO 8601 in UTC with milliseconds; `expires` is `null`
/// when the entry does not expire; a key that is not UTF-8 shows replacement characters.
private struct ListedEntry: Encodable {
    var key: String
    var digest: String
    var size: UInt64
    var created: String
    var lastAccess: String
    var expires: String?

    init(_ entry: EntryInfo) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        key = entry.key.string
        digest = entry.digest.hex
        size = entry.size
        created = formatter.string(from: entry.created)
        lastAccess = formatter.string(from: entry.lastAccess)
        expires = entry.expires.map(formatter.string(from:))
    }

    enum CodingKeys: String, CodingKey {
        case key, digest, size, created, lastAccess, expires
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(digest, forKey: .digest)
        try container.encode(size, forKey: .size)
        try container.encode(created, forKey: .created)
        try container.encode(lastAccess, forKey: .lastAccess)
        try container.encode(expires, forKey: .expires)  // null, not absent
    }
}
