import BlobStore
import Foundation
import Glibc

/// Runs a parsed ``Command``: what the subcommands share (opening the store, files, notes), and
/// the mapping of errors to exit codes. Each subcommand runs in `Commands/<Name>Command.swift`.
struct Runner {
    let options: GlobalOptions
    let environment: [String: String]
    let standardInput: FileHandle
    let output: Output
    let errors: Output

    /// Runs `command` and returns the exit code; every error is reported on standard error.
    func run(_ command: Command) -> Int32 {
        do {
            switch command {
            case .run(let subcommand):
                return try subcommand.run(in: self)
            case .version:
                try output.write(BlobStoreCLI.version + "\n")
                return ExitCode.success
            }
        } catch let error as BlobStoreError {
            errors.report("Error: \(error.description)\n" + (ErrorAdvice.hint(for: error.code).map { $0 + "\n" } ?? ""))
            return ExitCode.forError(error.code)
        } catch let failure as CommandFailure {
            errors.report("Error: \(failure.message)\n")
            return failure.exitCode
        } catch {
            errors.report("Error: \(error.localizedDescription)\n")
            return ExitCode.ioError
        }
    }

    // MARK: - The store

    /// Opens the store, runs `body`, and closes the store (which flushes pending writes).
    ///
    /// - Parameters:
    ///   - creating: Whether to create the store when there is none; commands that only read
    ///     pass `false`, so a mistyped path creates nothing.
    ///   - miss: For a command that looks a key or digest up, what its miss says (`No value for
    ///     key 'k'`). Without a store such a command answers as an empty store would, exit 1 (a
    ///     cache's store is created by its first `put`, so a script's first lookup finds none);
    ///     every other command exits 66 (``ExitCode/noStore``).
    ///   - chunkThreshold: A writing command's `--chunk-threshold`: values of at least this many bytes
    ///     are kept as chunks (``BlobStore/Configuration/chunkThreshold``); `nil` keeps them whole.
    func withStore<R>(
        creating: Bool = true, miss: String? = nil, chunkThreshold: UInt64? = nil, _ body: (BlobStore) throws -> R
    ) throws -> R {
        let (path, variable) = try storeDirectory()
        var configuration = BlobStore.Configuration()
        if let durability = options.durability { configuration.durability = durability }
        configuration.chunkThreshold = chunkThreshold.map { Int(clamping: $0) }
        configuration.createIfMissing = creating
        let store: BlobStore
        do {
            store = try BlobStore(at: path, configuration: configuration)
        } catch let error as BlobStoreError where error.code == .notFound && !creating {
            let message = Self.noStore(at: error.path ?? path, variable: variable, after: miss)
            throw CommandFailure(miss == nil ? ExitCode.noStore : ExitCode.keyNotFound, message)
        }
        reportRecovery(store.recoveryReport)
        let result: R
        do {
            result = try body(store)
        } catch {
            try? store.close()
            throw error
        }
        try store.close()
        return result
    }

    /// `--store`, else the default store and the variable it comes from.
    func storeDirectory() throws -> (path: String, variable: String?) {
        if let store = options.store { return (store, nil) }
        guard let choice = StoreLocation.defaultChoice(environment: environment) else {
            throw CommandFailure(
                ExitCode.usage, "No store directory: pass --store <dir>, or set BLOBSTORE_DIR or HOME.")
        }
        return (choice.directory, choice.variable)
    }

    /// Tells the user on standard error what opening the store repaired or dropped; a torn tail
    /// lost nothing acknowledged, so its note is left out with `--quiet`.
    private func reportRecovery(_ report: RecoveryReport) {
        if report.tornTailBytes > 0 {
            note(
                "Note: the journal ended in an interrupted write; its last \(report.tornTailBytes) bytes "
                    + "were truncated. Nothing acknowledged was lost.\n")
        }
        if report.droppedBytes > 0 {
            errors.report(
                "Warning: the journal is damaged\(Self.damageLocation(report)); \(report.droppedBytes) bytes of "
                    + "records after it were dropped\(Self.savedIn(report)).\n")
        }
    }

    // MARK: - Quiet

    /// Writes `text` to standard error unless `--quiet`: for what is neither a result nor a
    /// problem (a repaired torn tail, `fetch`'s outcome, `demo`'s opening line).
    func note(_ text: String) {
        if !options.quiet { errors.report(text) }
    }

    /// The progress line for `label` on standard error, when it is a terminal and not `--quiet`.
    func progressDisplay(label: String, isTerminal: (Int32) -> Bool = { isatty($0) == 1 }) -> ProgressDisplay? {
        options.quiet ? nil : ProgressDisplay.onTerminal(errors.handle, label: label, isTerminal: isTerminal)
    }

    // MARK: - Files

    /// Opens a file the user named for reading; refuses a directory.
    func openForReading(_ path: String) throws -> FileHandle {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CommandFailure(ExitCode.ioError, "Cannot read '\(path)': \(String(cString: strerror(errno))).")
        }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            Glibc.close(fd)
            throw CommandFailure(ExitCode.ioError, "Cannot read '\(path)': it is a directory.")
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Copies `source` to `file` (created or truncated), or to standard output when `file` is
    /// `nil` or `-`, in 1 MiB pieces, so memory use does not grow with the size.
    func copy(_ source: FileHandle, to file: String?) throws {
        let destination = try openOutput(file)
        try copy(source, into: destination)
        if destination !== output.handle { try destination.close() }
    }

    /// `file` created or truncated, or standard output when `file` is `nil` or `-`.
    func openOutput(_ file: String?) throws -> FileHandle {
        guard let file, file != "-" else { return output.handle }
        return try openForWriting(file)
    }

    /// Copies `source` to `destination` in 1 MiB pieces, so memory use does not grow with the size.
    func copy(_ source: FileHandle, into destination: FileHandle) throws {
        while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
            try destination.write(contentsOf: chunk)
        }
    }

    /// Creates or truncates a file the user named for writing.
    func openForWriting(_ path: String) throws -> FileHandle {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw CommandFailure(ExitCode.ioError, "Cannot write '\(path)': \(String(cString: strerror(errno))).")
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// What a command that does not create the store says when there is none at `path` (a
    /// directory that does not exist, or an empty one): the path, where it came from when the
    /// user did not type it, and what to do.
    /// After `miss`, for a command that looks something up, the message goes on from it.
    static func noStore(at path: String, variable: String?, after miss: String?) -> String {
        let source = variable.map { " (the default store, from $\($0))" } ?? ""
        let start = miss.map { "\($0): there is" } ?? "There is"
        return "\(start) no store at \(path)\(source). Check the path, or pass --store <dir> to use another "
            + "store; 'blobstore put <key> [<file>]' creates one."
    }

    /// "No value for key 'k'." for a missing key.
    func keyNotFound(_ key: String) -> CommandFailure {
        keysNotFound([key])
    }

    /// "No value for key 'k'." for one missing key, "No value for keys 'a', 'b'." for several.
    func keysNotFound(_ keys: [String]) -> CommandFailure {
        CommandFailure(ExitCode.keyNotFound, Self.noValue(keys) + ".")
    }

    /// `No value for key 'k'`, or `No value for keys 'a', 'b'` for several.
    static func noValue(_ keys: [String]) -> String {
        let quoted = keys.map { "'\($0)'" }.joined(separator: ", ")
        return keys.count == 1 ? "No value for key \(quoted)" : "No value for keys \(quoted)"
    }

    // MARK: - Text

    /// `name: value` lines with the values aligned, at column 16 or after the longest name.
    static func rows(_ rows: [(name: String, value: String)]) -> String {
        let width = max(16, (rows.map(\.name.count).max() ?? 0) + 2)
        return rows.map { name, value in
            (name + ":").padding(toLength: width, withPad: " ", startingAt: 0) + value + "\n"
        }.joined()
    }

    /// `1 blob`, `2 blobs`.
    static func count(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) \(count == 1 ? singular : plural)"
    }

    /// ` at offset N (reason)` for a damaged journal, each part when known.
    static func damageLocation(_ report: RecoveryReport) -> String {
        (report.corruptionOffset.map { " at offset \($0)" } ?? "") + (report.corruptionReason.map { " (\($0))" } ?? "")
    }

    /// ` and saved in <path>` when the dropped bytes were kept.
    static func savedIn(_ report: RecoveryReport) -> String {
        report.quarantinedJournal.map { " and saved in \($0)" } ?? ""
    }
}
