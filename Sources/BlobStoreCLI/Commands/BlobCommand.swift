import BlobStore
import Foundation

/// `blobstore blob <digest> [-o <file>]`: its description, its value, and its run below.
struct BlobCommand: SubcommandValue {
    /// The content's SHA-256 (all zeros until the argument is read: it is required).
    var digest = SHA256Digest(bytes: [UInt8](repeating: 0, count: 32))!
    /// `-o`, `--output`: the file to write; `nil` (or `-`) is standard output.
    var output: String?

    static let spec = CommandSpec<BlobCommand>(
        .blob,
        abstract: "Write the content with a SHA-256 digest to standard output or to a file.",
        discussion: "The content is found whichever keys refer to it, even none (a blob that 'blobstore gc' "
            + "has not deleted yet). It is verified against the digest before it is written. A blob "
            + "found damaged is moved to quarantine/ and the command exits 65.",
        arguments: [
            .required(
                "<digest>", help: "The SHA-256 of the content: 64 hexadecimal digits, as put and ls print it.",
                .digest, \.digest)
        ],
        options: [
            .value(
                "-o", "--output", valueName: "<file>", help: "Write the content to <file> instead of standard output.",
                .path(.file), \.output)
        ])

    func run(in runner: Runner) throws -> Int32 { try runner.blob(self) }
}

extension Runner {
    /// `blob <digest> [-o <file>]`: copies the verified content with that SHA-256, whatever key
    /// refers to it, to standard output (no `-o`, or `-o -`) or the output file, in 1 MiB pieces.
    func blob(_ command: BlobCommand) throws -> Int32 {
        let digest = command.digest
        try withStore(creating: false, miss: "No blob with digest \(digest.hex)") { store in
            switch try store.openBlob(digest) {
            case .found(let source):
                defer { try? source.close() }
                try copy(source, to: command.output)
            case .damaged:
                throw CommandFailure(
                    ExitCode.dataError,
                    "The blob \(digest.hex) is damaged or missing on disk; it was not returned, and it was moved "
                        + "to quarantine/ (with its entries dropped) unless the store is read-only.")
            case .absent:
                throw CommandFailure(ExitCode.keyNotFound, "No blob with digest \(digest.hex).")
            }
        }
        return ExitCode.success
    }
}
