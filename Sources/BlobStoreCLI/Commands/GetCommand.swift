import BlobStore
import BlobStoreRemote
import Foundation

/// `blobstore get <key> ... [-o <file>]`: its description, its value, and its run below.
struct GetCommand: SubcommandValue {
    /// The keys, taken as given, in order (one at least).
    var keys: [String] = []
    /// `-o`, `--output`: the file to write; `nil` (or `-`) is standard output.
    var output: String?
    /// `--range`: only these bytes of the value (one key only).
    var range: ValueRange?

    static let spec = CommandSpec<GetCommand>(
        .get,
        abstract: "Write the values stored under keys to standard output or to a file.",
        discussion: "Each value is verified against its digest before it is written. With several keys the "
            + "values are written one after another, as cat does; if any key is missing, nothing is "
            + "written and the command exits 1. A value found damaged is removed from the store and "
            + "the command exits 65. With --remote, a local miss asks the remote; its value is "
            + "verified, stored locally and written. With --range, only those bytes of the one key's "
            + "value are written, verified: of a chunked value, only the chunks that hold them are read.",
        remote: .tiered,
        arguments: [
            .oneOrMore(
                "<key>", help: "The keys, taken as given; their values are written one after another.", .text(),
                \.keys)
        ],
        options: [
            .value(
                "-o", "--output", valueName: "<file>", help: "Write the values to <file> instead of standard output.",
                .path(.file), \.output),
            .value(
                "--range", valueName: "<first>-<last>",
                help: "Write only bytes <first> to <last> of the value (from 0, both included; <first>- reads "
                    + "to the end); one key only.", .valueRange, \.range),
        ])

    func run(in runner: Runner) throws -> Int32 { try runner.get(self) }
}

extension Runner {
    /// `get <key> ... [-o <file>]`: copies each key's verified value, one after another as `cat`
    /// does, to standard output (no `-o`, or `-o -`) or the output file, in 1 MiB pieces, so memory use
    /// does not grow with the values. Every key is looked up first: if any is missing, locally
    /// and in the remote (if any), nothing is written (no file is created) and the command exits
    /// 1. A local miss asks the remote; a verified remote hit is stored locally, then copied (or
    /// written from memory when the local store did not keep it: larger than its capacity, or
    /// `--remote-only`, which never reads the local store).
    func get(_ command: GetCommand) throws -> Int32 {
        let keys = command.keys
        if command.range != nil && keys.count != 1 {
            throw CommandFailure(ExitCode.usage, "--range reads one key's value; \(keys.count) keys were given.")
        }
        let remote = try remoteBackend()
        try withStore(creating: remote != nil, miss: Self.noValue(keys)) { store in
            let tiered = tiered(store, remote)
            defer { finishRemote(tiered) }
            let missing = try keys.filter { key in
                try !(tiered?.contains(StoreKey(key)) ?? store.contains(StoreKey(key)))
            }
            guard missing.isEmpty else {
                // Read, not only looked up, so that the store counts the misses in its hit ratio
                // (`contains` counts nothing); they read nothing, the keys being absent.
                if !options.remoteOnly {
                    for key in missing { _ = try store.entry(for: StoreKey(key)) }
                }
                throw keysNotFound(missing)
            }
            let destination = try openOutput(command.output)
            defer { if destination !== output.handle { try? destination.close() } }
            if let range = command.range {
                try write(range, of: keys[0], from: store, tiered, into: destination)
                return
            }
            for key in keys {
                try write(key, from: store, tiered, into: destination)
            }
        }
        return ExitCode.success
    }

    /// Writes bytes `range` of `key`'s verified value into `destination`: from the local copy
    /// (of a chunked value, only the chunks that hold them are read), else from the remote's
    /// value, which a remote read stores locally first.
    private func write(
        _ range: ValueRange, of key: String, from store: BlobStore, _ tiered: TieredStore?,
        into destination: FileHandle
    ) throws {
        let storeKey = StoreKey(key)
        let remoteOnly = tiered?.configuration.remoteOnly ?? false
        if !remoteOnly, let info = try store.info(for: storeKey) {
            let positions = range.positions(inValueOf: Int(clamping: info.size))
            switch try store.readRange(positions, of: storeKey) {
            case .found(let bytes): return try destination.write(contentsOf: bytes)
            case .damaged where tiered == nil:
                throw CommandFailure(
                    ExitCode.dataError,
                    "The value for key '\(key)' is damaged or missing on disk; it was not returned, and the "
                        + "entry was dropped unless the store is read-only.")
            case .damaged, .absent: break
            }
        }
        guard let tiered, let fetched = try tiered.value(for: storeKey) else { throw keyNotFound(key) }
        let positions = range.positions(inValueOf: fetched.count)
        try destination.write(contentsOf: fetched.dropFirst(positions.lowerBound).prefix(positions.count))
    }

    /// Writes `key`'s verified value into `destination`: the local copy, else the remote's.
    ///
    /// - Throws: ``CommandFailure`` with exit 65 when the local copy is damaged (and not in the
    ///   remote), or 1 when the key went away since it was looked up.
    private func write(
        _ key: String, from store: BlobStore, _ tiered: TieredStore?, into destination: FileHandle
    ) throws {
        let remoteOnly = tiered?.configuration.remoteOnly ?? false
        let local: ReadOutcome<FileHandle> = remoteOnly ? .absent : try store.openValue(for: StoreKey(key))
        if case .found(let source) = local {
            defer { try? source.close() }
            return try copy(source, into: destination)
        }
        if let tiered, let fetched = try tiered.value(for: StoreKey(key)) {
            // Stored locally by now, unless larger than the local capacity (or remote-only): then
            // from memory.
            guard !remoteOnly, let source = try store.fileHandle(for: StoreKey(key)) else {
                return try destination.write(contentsOf: fetched)
            }
            defer { try? source.close() }
            return try copy(source, into: destination)
        }
        if case .damaged = local {
            throw CommandFailure(
                ExitCode.dataError,
                "The value for key '\(key)' is damaged or missing on disk; it was not returned, and the "
                    + "entry was dropped unless the store is read-only.")
        }
        throw keyNotFound(key)
    }
}
