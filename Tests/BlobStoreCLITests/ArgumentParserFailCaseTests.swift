import Foundation
import Testing

@testable import BlobStoreCLI

/// Replays every command line the ArgumentParser fuzzer found a bug with
/// (`Fuzz/FailCases/ArgumentParser/`), checking the harness's properties about help and `--`, so
/// a fixed bug stays fixed. Each file is the arguments separated by NUL or newline, as the
/// harness reads its input.
@Suite struct ArgumentParserFailCaseTests {
    static let failCases: [URL] = {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/FailCases/ArgumentParser")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }()

    /// The arguments a fail case stands for: split at NUL and newline, each decoded as UTF-8.
    static func arguments(_ file: URL) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: file))
        guard !bytes.isEmpty else { return [] }
        return bytes.split(omittingEmptySubsequences: false) { $0 == 0 || $0 == 10 }
            .map { String(decoding: $0, as: UTF8.self) }
    }

    static func parse(_ arguments: [String]) -> Result<Invocation, CommandLineError> {
        Result { () throws(CommandLineError) in try ArgumentParser.parse(arguments) }
    }

    /// What kind of result: an error, or which command.
    static func kind(_ result: Result<Invocation, CommandLineError>) -> String {
        guard case .success(let invocation) = result else { return "error" }
        return invocation.command.subcommand?.rawValue ?? "version"
    }

    static func asksForHelp(_ argument: String) -> Bool {
        argument == "-h" || argument == "--help" || argument.unicodeScalars.starts(with: "--help=".unicodeScalars)
    }

    @Test func thereAreFailCasesToReplay() {
        #expect(!Self.failCases.isEmpty)
    }

    @Test(arguments: failCases)
    func failCaseKeepsTheParserProperties(_ file: URL) throws {
        let arguments = try Self.arguments(file)
        let result = Self.parse(arguments)

        // -h, --help or --help=… before the first `--` asks for help.
        if arguments.prefix(while: { $0 != "--" }).contains(where: Self.asksForHelp) {
            #expect(Self.kind(result) == "help", "\(arguments)")
        }
        // After `--`, an argument that looks like an option is parsed like a plain word.
        if let dashes = arguments.firstIndex(of: "--") {
            var plain = arguments
            for index in plain.indices.dropFirst(dashes + 1) where plain[index].hasPrefix("-") && plain[index] != "-" {
                plain[index] = "x"
            }
            #expect(Self.kind(Self.parse(plain)) == Self.kind(result), "\(arguments)")
        }
        // Given as `--name=value`, an option's value is the same as given separately.
        if case .success(let invocation) = result, let store = invocation.options.store {
            #expect(try ArgumentParser.parse(["--store=" + store, "ls"]).options.store == store)
        }
    }
}
