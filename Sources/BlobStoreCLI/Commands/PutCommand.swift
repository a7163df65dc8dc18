import BlobStore
import BlobStoreRemote
import Foundation

/// `blobstore put <key> [<file>] [--json]`: its description, its value, and its run below.
struct PutCommand: SubcommandValue {
    /// The key, taken as given.
    var key = ""
    /// The file to store; `nil` (or `-`) reads standard input.
    var file: String?
    /// `--chunk-threshold <size>`: a value at least this large is kept as chunks.
    var chunkThreshold: UInt64?
    /// `--json`: print the digest, the key and the size as a JSON object.
    var json = false

    static let spec = CommandSpec<PutCommand>(
        .put,
        abstract: "Store a file, or standard input, under a key and print its SHA-256 digest.",
        discussion: "Identical content is stored once, however many keys refer to it. Use -- before a key "
            + "that starts with '-'.",
        remote: .tiered,
        arguments: [
            .required("<key>", help: "The key, taken as given.", .text(), \.key),
            .optional("<file>", help: "The file to store.", default: "standard input", .text(.file), \.file),
        ],
        options: [
            .chunkThreshold("values", \.chunkThreshold),
            .flag("--json", help: "Print the digest, the key and the size as a JSON object.", \.json),
        ])

    func run(in runner: Runner) throws -> Int32 { try runner.put(self) }
}

extension Runner {
    /// `put <key> [<file>] [--json]`: streams the file (or standard input, for no file or `-`)
    /// into the store and prints the digest, or with `json` the digest, key and size. With a
    /// remote, then uploads it (the blob only if the remote lacks it); with `--remote-only`,
    /// only uploads it.
    func put(_ command: PutCommand) throws -> Int32 {
        let remote = try remoteBackend()
        let (key, json) = (command.key, command.json)
        let file = command.file == "-" ? nil : command.file
        if let file {
            try openForReading(file).close()  // a clear error before any store is created
        }
        if options.remoteOnly, let remote {
            return try putRemoteOnly(key: key, file: file, json: json, remote)
        }
        let stored = try withStore(chunkThreshold: command.chunkThreshold) { store in
            let digest =
                try file.map { try store.put(contentsOf: URL(fileURLWithPath: $0), for: StoreKey(key)) }
                ?? store.put(readingFrom: standardInput, for: StoreKey(key))
            try upload(key, store, remote)
            let info = try store.info(for: StoreKey(key))
            return PutResult(digest: digest.hex, key: key, size: info?.digest == digest ? info?.size : nil)
        }
        try report(stored, json: json)
        return ExitCode.success
    }

    /// `put --remote-only`: reads the value into memory, up to the largest value the remote
    /// takes, and uploads it; the store keeps only the remote counters.
    ///
    /// - Throws: ``CommandFailure`` with exit 73 for a value larger than the remote takes.
    private func putRemoteOnly(key: String, file: String?, json: Bool, _ remote: any RemoteBackend) throws -> Int32 {
        let maximum = min(RemoteConfiguration().maximumValueSize, remote.maximumValueSize)
        let source = try file.map(openForReading) ?? standardInput
        var data = Data()
        while data.count <= maximum, let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
            data.append(chunk)
        }
        guard data.count <= maximum else {
            throw CommandFailure(
                ExitCode.cannotStore,
                "The value is larger than the \(maximum) bytes the remote takes; with --remote-only nothing can "
                    + "store it.")
        }
        let stored = try withStore { store in
            let tiered = TieredStore(
                local: store, remote: remote,
                configuration: RemoteConfiguration(readOnly: options.remoteReadOnly, remoteOnly: true))
            let digest = try tiered.put(data, for: StoreKey(key))
            finishRemote(tiered)
            return PutResult(digest: digest.hex, key: key, size: UInt64(data.count))
        }
        try report(stored, json: json)
        return ExitCode.success
    }

    private func report(_ stored: PutResult, json: Bool) throws {
        if json {
            try output.writeJSON(stored)
        } else {
            try output.write(stored.digest + "\n")
        }
    }

    /// Uploads `key`'s entry to `remote`, if any.
    private func upload(_ key: String, _ store: BlobStore, _ remote: (any RemoteBackend)?) throws {
        guard let tiered = tiered(store, remote) else { return }
        try tiered.upload(StoreKey(key))
        finishRemote(tiered)
    }
}

/// `put --json`: `{digest, key, size}`. `size` is `null` only when another process replaced the
/// key before its entry could be read back.
private struct PutResult: Encodable {
    var digest: String
    var key: String
    var size: UInt64?

    enum CodingKeys: String, CodingKey {
        case digest, key, size
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(digest, forKey: .digest)
        try container.encode(key, forKey: .key)
        try container.encode(size, forKey: .size)  // null, not absent
    }
}
