import BlobStore
import Testing

@testable import BlobStoreCLI

/// The parser alone: command lines to ``Invocation`` values or ``CommandLineError``s.
@Suite struct ArgumentParserTests {
    private func parse(_ arguments: [String]) throws(CommandLineError) -> Invocation {
        try ArgumentParser.parse(arguments)
    }

    private func error(_ arguments: [String]) -> CommandLineError? {
        do {
            _ = try ArgumentParser.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func subcommandsWithTheirArguments() throws {
        #expect(try parse(["put", "k"]).command == .put(key: "k", file: nil))
        #expect(try parse(["put", "k", "f"]).command == .put(key: "k", file: "f"))
        #expect(try parse(["get", "k"]).command == .get(key: "k", output: nil))
        #expect(try parse(["get", "k", "-o", "out"]).command == .get(key: "k", output: "out"))
        #expect(try parse(["get", "--output=out", "k"]).command == .get(key: "k", output: "out"))
        #expect(try parse(["has", "k"]).command == .has(key: "k"))
        #expect(try parse(["rm", "k"]).command == .remove(key: "k"))
        #expect(try parse(["ls"]).command == .list(json: false))
        #expect(try parse(["ls", "--json"]).command == .list(json: true))
        #expect(try parse(["stats", "--json"]).command == .stats(json: true))
        #expect(try parse(["demo"]).command == .demo(directory: nil))
        #expect(try parse(["demo", "dir"]).command == .demo(directory: "dir"))
    }

    @Test func globalOptionsBeforeOrAfterTheSubcommand() throws {
        let expected = GlobalOptions(store: "/s", durability: .always)
        #expect(try parse(["--store", "/s", "--durability", "always", "ls"]).options == expected)
        #expect(try parse(["ls", "--store=/s", "--durability=always"]).options == expected)
        #expect(try parse(["--durability", "none", "ls"]).options.durability == Durability.none)
        #expect(try parse(["ls"]).options == GlobalOptions())
    }

    @Test func helpAndVersion() throws {
        #expect(try parse([]).command == .help(nil))
        #expect(try parse(["--help"]).command == .help(nil))
        #expect(try parse(["help"]).command == .help(nil))
        #expect(try parse(["help", "get"]).command == .help(.get))
        #expect(try parse(["get", "-h"]).command == .help(.get))
        #expect(try parse(["-h", "get"]).command == .help(.get))
        #expect(try parse(["get", "--bogus", "--help"]).command == .help(.get))
        #expect(try parse(["--version"]).command == .version)
    }

    @Test func doubleDashEndsOptions() throws {
        #expect(try parse(["put", "--", "-k", "--json"]).command == .put(key: "-k", file: "--json"))
        #expect(try parse(["get", "--", "--help"]).command == .get(key: "--help", output: nil))
        #expect(try parse(["has", "-"]).command == .has(key: "-"))
    }

    @Test func keysAreTakenAsGiven() throws {
        #expect(try parse(["put", "../a b/./c"]).command == .put(key: "../a b/./c", file: nil))
        #expect(try parse(["has", ""]).command == .has(key: ""))
    }

    @Test func unknownOptionNamesTheSubcommand() {
        #expect(error(["--bogus"]) == CommandLineError("Unknown option '--bogus'", subcommand: nil))
        #expect(error(["ls", "-x"]) == CommandLineError("Unknown option '-x'", subcommand: .ls))
        #expect(error(["--json", "ls"]) == CommandLineError("Unknown option '--json'", subcommand: nil))
        #expect(error(["put", "k", "--json"]) == CommandLineError("Unknown option '--json'", subcommand: .put))
    }

    @Test func unknownSubcommand() {
        #expect(error(["frobnicate"]) == CommandLineError("Unknown subcommand 'frobnicate'", subcommand: nil))
        #expect(
            error(["help", "frobnicate"]) == CommandLineError("Unknown subcommand 'frobnicate'", subcommand: .help))
    }

    @Test func missingAndUnexpectedArguments() {
        #expect(error(["get"]) == CommandLineError("Missing expected argument '<key>'", subcommand: .get))
        #expect(error(["put"]) == CommandLineError("Missing expected argument '<key>'", subcommand: .put))
        #expect(error(["put", "k", "f", "extra"]) == CommandLineError("Unexpected argument 'extra'", subcommand: .put))
        #expect(error(["ls", "x"]) == CommandLineError("Unexpected argument 'x'", subcommand: .ls))
    }

    @Test func badOptionValues() {
        #expect(error(["--store"]) == CommandLineError("Missing value for '--store <dir>'", subcommand: nil))
        #expect(error(["--store", "--json", "ls"])?.message == "Missing value for '--store <dir>'")
        #expect(error(["--store=", "ls"])?.message == "The value '' is invalid for '--store <dir>'")
        #expect(error(["get", "k", "-o"]) == CommandLineError("Missing value for '--output <file>'", subcommand: .get))
        #expect(
            error(["--durability", "sometimes", "ls"])?.message
                == "The value 'sometimes' is invalid for '--durability <mode>'. Use none, batched or always")
        #expect(error(["ls", "--json=yes"])?.message == "The option '--json' takes no value")
        #expect(error(["put", "--version"])?.message == "The option '--version' takes no subcommand")
    }

    @Test func usageErrorText() {
        let text = HelpText.usageError(CommandLineError("Missing expected argument '<key>'", subcommand: .get))
        #expect(
            text == """
                Error: Missing expected argument '<key>'
                Usage: blobstore get [--store <dir>] [--durability <mode>] <key> [-o <file>]
                  See 'blobstore get --help' for more information.

                """)
    }

    @Test func defaultStoreLookupOrder() {
        let all = ["BLOBSTORE_DIR": "/b", "XDG_CACHE_HOME": "/x", "HOME": "/h"]
        #expect(StoreLocation.defaultDirectory(environment: all) == "/b")
        #expect(
            StoreLocation.defaultDirectory(environment: ["BLOBSTORE_DIR": "", "XDG_CACHE_HOME": "/x"]) == "/x/blobstore"
        )
        #expect(
            StoreLocation.defaultDirectory(environment: ["XDG_CACHE_HOME": "rel", "HOME": "/h"])
                == "/h/.cache/blobstore")
        #expect(StoreLocation.defaultDirectory(environment: [:]) == nil)
    }

    @Test func libraryErrorCodesMapToExitCodes() {
        #expect(ExitCode.forError(.corrupt) == 65)
        #expect(ExitCode.forError(.busy) == 75)
        #expect(ExitCode.forError(.tooLarge) == 64)
        #expect(ExitCode.forError(.notAStore) == 74)
        #expect(ExitCode.forError(.notFound) == 74)
        #expect(ExitCode.forError(.unsupportedVersion) == 74)
    }
}
