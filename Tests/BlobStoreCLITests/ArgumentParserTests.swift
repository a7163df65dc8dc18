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
        #expect(try parse(["put", "k"]).command == .run(PutCommand(key: "k", file: nil)))
        #expect(try parse(["put", "k", "f"]).command == .run(PutCommand(key: "k", file: "f")))
        #expect(try parse(["get", "k"]).command == .run(GetCommand(keys: ["k"], output: nil)))
        #expect(try parse(["get", "k", "-o", "out"]).command == .run(GetCommand(keys: ["k"], output: "out")))
        #expect(try parse(["get", "--output=out", "k"]).command == .run(GetCommand(keys: ["k"], output: "out")))
        #expect(try parse(["has", "k"]).command == .run(HasCommand(key: "k")))
        #expect(try parse(["rm", "k"]).command == .run(RemoveCommand(keys: ["k"])))
        #expect(try parse(["rm", "a", "b", "a"]).command == .run(RemoveCommand(keys: ["a", "b", "a"])))
        #expect(
            try parse(["get", "a", "-o", "out", "b"]).command == .run(GetCommand(keys: ["a", "b"], output: "out")))
        #expect(try parse(["ls"]).command == .run(ListCommand(json: false)))
        #expect(try parse(["ls", "--json"]).command == .run(ListCommand(json: true)))
        #expect(try parse(["stats", "--json"]).command == .run(StatsCommand(json: true)))
        #expect(try parse(["demo"]).command == .run(DemoCommand(directory: nil)))
        #expect(try parse(["demo", "dir"]).command == .run(DemoCommand(directory: "dir")))
        #expect(try parse(["put", "k", "--json"]).command == .run(PutCommand(key: "k", file: nil, json: true)))
        #expect(
            try parse(["put", "--chunk-threshold", "1M", "k"]).command
                == .run(PutCommand(key: "k", file: nil, chunkThreshold: 1 << 20)))
        #expect(try parse(["put", "--json", "k", "f"]).command == .run(PutCommand(key: "k", file: "f", json: true)))
        #expect(try parse(["demo", "dir", "--json"]).command == .run(DemoCommand(directory: "dir", json: true)))
    }

    @Test func globalOptionsBeforeOrAfterTheSubcommand() throws {
        let expected = GlobalOptions(store: "/s", durability: .always)
        #expect(try parse(["--store", "/s", "--durability", "always", "ls"]).options == expected)
        #expect(try parse(["ls", "--store=/s", "--durability=always"]).options == expected)
        #expect(try parse(["--durability", "none", "ls"]).options.durability == Durability.none)
        #expect(try parse(["ls"]).options == GlobalOptions())
        #expect(try parse(["-q", "ls"]).options == GlobalOptions(quiet: true))
        #expect(try parse(["ls", "--quiet", "--store", "/s"]).options == GlobalOptions(store: "/s", quiet: true))
        #expect(error(["ls", "--quiet=yes"])?.message == "The option '--quiet' takes no value")
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

    @Test func helpAfterAnUnknownSubcommandCountsOnlyBeforeDoubleDash() throws {
        #expect(try parse(["frob", "--help"]).command == .help(nil))
        // As `ls --help=x` is help on ls, and `--help=x frob` the overview.
        #expect(try parse(["frob", "--help=x"]).command == .help(nil))
        #expect(try parse(["ls", "--help=x"]).command == .help(.ls))
        #expect(try parse(["--help=x", "frob"]).command == .help(nil))
        // After `--`, `--help` is an argument, as in `get -- --help`.
        #expect(error(["frob", "--", "--help"]) == CommandLineError("Unknown subcommand 'frob'", subcommand: nil))
        #expect(error(["", "--", "-h"]) == CommandLineError("Unknown subcommand ''", subcommand: nil))
        #expect(error(["--", "frob", "-h"]) == CommandLineError("Unknown subcommand 'frob'", subcommand: nil))
    }

    /// `--remote` without a subcommand is the overview, keeping the remote, as `--store` is; the
    /// `help` subcommand refuses it, `--help` does not (Fuzz/FailCases/ArgumentParser/
    /// remote-without-subcommand-is-help.args, a bug of the harness's spelling).
    @Test func remoteWithoutASubcommandIsTheOverview() throws {
        #expect(
            try parse(["--remote=,\u{fffd}"])
                == Invocation(options: GlobalOptions(remote: ",\u{fffd}"), command: .help(nil)))
        #expect(try parse(["--remote", "x", "gc", "--help"]).command == .help(.gc))
        #expect(try parse(["--remote", "x", "gc", "--help"]).options.remote == "x")
        #expect(
            error(["--remote", "x", "help"])
                == CommandLineError(
                    "The option '--remote' applies to put, get, has, rm, stats and remote only", subcommand: .help))
    }

    @Test func remoteOptionsAndRemotePing() throws {
        let invocation = try parse([
            "--remote-ca", "ca.pem", "get", "--remote-read-only", "k", "--remote-only", "--remote=rediss://h",
        ])
        #expect(
            invocation
                == Invocation(
                    options: GlobalOptions(
                        remote: "rediss://h", remoteCA: "ca.pem", remoteReadOnly: true, remoteOnly: true),
                    command: .run(GetCommand(keys: ["k"], output: nil))))
        #expect(try parse(["remote", "ping"]).command == .run(RemoteCommand(json: false)))
        #expect(try parse(["remote", "--json", "ping", "--remote-ca=c"]).command == .run(RemoteCommand(json: true)))
        #expect(try parse(["remote", "--json", "ping", "--remote-ca=c"]).options.remoteCA == "c")
        #expect(try parse(["--remote-only", "put", "--help"]).command == .help(.put))
        #expect(
            error(["remote"]) == CommandLineError("Missing expected argument '<action>'", subcommand: .remote))
        #expect(
            error(["remote", "pong"])
                == CommandLineError("The value 'pong' is invalid for '<action>'. Use ping", subcommand: .remote))
        #expect(error(["remote", "ping", "x"]) == CommandLineError("Unexpected argument 'x'", subcommand: .remote))
        #expect(
            error(["--remote-only", "remote", "ping"])
                == CommandLineError(
                    "The option '--remote-only' applies to put, get, has and rm only", subcommand: .remote))
        #expect(
            error(["--remote-read-only", "stats"])
                == CommandLineError(
                    "The option '--remote-read-only' applies to put, get, has and rm only", subcommand: .stats))
        #expect(error(["gc", "--remote-only"]) == CommandLineError("Unknown option '--remote-only'", subcommand: .gc))
        #expect(
            error(["--remote-ca", "c", "ls"])
                == CommandLineError(
                    "The option '--remote-ca' applies to put, get, has, rm, stats and remote only", subcommand: .ls))
        #expect(
            error(["get", "k", "--remote-ca="])
                == CommandLineError("The value '' is invalid for '--remote-ca <file>'", subcommand: .get))
        #expect(
            error(["get", "k", "--remote-only=yes"])
                == CommandLineError("The option '--remote-only' takes no value", subcommand: .get))
    }

    @Test func doubleDashEndsOptions() throws {
        #expect(try parse(["put", "--", "-k", "--json"]).command == .run(PutCommand(key: "-k", file: "--json")))
        #expect(try parse(["get", "--", "--help"]).command == .run(GetCommand(keys: ["--help"], output: nil)))
        #expect(try parse(["has", "-"]).command == .run(HasCommand(key: "-")))
    }

    @Test func inlineValueStartingWithACombiningMark() throws {
        // "=" and U+0301 form one character; the value still starts after the "=".
        #expect(try parse(["--store=\u{301}/s", "ls"]).options.store == "\u{301}/s")
        #expect(
            try parse(["get", "--output=\u{301}", "k"]).command == .run(GetCommand(keys: ["k"], output: "\u{301}")))
        #expect(try parse(["frob", "--help=\u{301}"]).command == .help(nil))
    }

    @Test func keysAreTakenAsGiven() throws {
        #expect(try parse(["put", "../a b/./c"]).command == .run(PutCommand(key: "../a b/./c", file: nil)))
        #expect(try parse(["has", ""]).command == .run(HasCommand(key: "")))
    }

    @Test func unknownOptionNamesTheSubcommand() {
        #expect(error(["--bogus"]) == CommandLineError("Unknown option '--bogus'", subcommand: nil))
        #expect(error(["ls", "-x"]) == CommandLineError("Unknown option '-x'", subcommand: .ls))
        #expect(error(["--json", "ls"]) == CommandLineError("Unknown option '--json'", subcommand: nil))
        #expect(error(["has", "k", "--json"]) == CommandLineError("Unknown option '--json'", subcommand: .has))
    }

    @Test func unknownSubcommand() {
        #expect(error(["frobnicate"]) == CommandLineError("Unknown subcommand 'frobnicate'", subcommand: nil))
        #expect(
            error(["help", "frobnicate"]) == CommandLineError("Unknown subcommand 'frobnicate'", subcommand: .help))
    }

    @Test func missingAndUnexpectedArguments() {
        #expect(error(["get"]) == CommandLineError("Missing expected argument '<key> ...'", subcommand: .get))
        #expect(error(["put"]) == CommandLineError("Missing expected argument '<key>'", subcommand: .put))
        #expect(error(["rm"]) == CommandLineError("Missing expected argument '<key> ...'", subcommand: .rm))
        #expect(error(["has", "a", "b"]) == CommandLineError("Unexpected argument 'b'", subcommand: .has))
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

    // MARK: - blob

    @Test func blobTakesSixtyFourHexDigitsInEitherCase() throws {
        let hex = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
        let digest = try #require(SHA256Digest(hex: hex))
        #expect(try parse(["blob", hex]).command == .run(BlobCommand(digest: digest, output: nil)))
        #expect(
            try parse(["blob", hex.uppercased(), "-o", "out"]).command
                == .run(BlobCommand(digest: digest, output: "out")))
        #expect(
            try parse(["blob", "--output=-", "5891B5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6bE03"])
                .command == .run(BlobCommand(digest: digest, output: "-")))
        #expect(error(["blob"]) == CommandLineError("Missing expected argument '<digest>'", subcommand: .blob))
        #expect(error(["blob", hex, hex]) == CommandLineError("Unexpected argument '\(hex)'", subcommand: .blob))
    }

    /// Anything but 64 hexadecimal digits is a usage error naming the first character that is
    /// not one, or the count; the argument is shown with control characters escaped and cut.
    @Test(arguments: [
        ("", "it is empty"),
        (String(repeating: "a", count: 63), "it has 63 digits, not 64"),
        (String(repeating: "a", count: 65), "it has 65 digits, not 64"),
        ("../" + String(repeating: "a", count: 61), "'.' is not a hexadecimal digit"),
        ("/etc/passwd", "'/' is not a hexadecimal digit"),
        ("sha256:" + String(repeating: "a", count: 64), "'s' is not a hexadecimal digit"),
        (" " + String(repeating: "a", count: 63), "' ' is not a hexadecimal digit"),
        (String(repeating: "a", count: 63) + "g", "'g' is not a hexadecimal digit"),
        (
            String(repeating: "a", count: 32) + "\0" + String(repeating: "a", count: 31),
            "'\\u{0}' is not a hexadecimal digit"
        ),
        ("\u{1b}[2J", "'\\u{1b}' is not a hexadecimal digit"),
        (String(repeating: "\u{FF10}", count: 64), "'\u{FF10}' is not a hexadecimal digit"),
    ])
    func blobRefusesAnythingButSixtyFourHexDigits(_ argument: String, _ reason: String) {
        let message = error(["blob", "--", argument])?.message
        #expect(message?.contains("is invalid for '<digest>': \(reason). Use the 64 hexadecimal digits") == true)
        #expect(message?.hasPrefix("The value \(ArgumentParser.shown(argument)) is invalid") == true)
        #expect(error(["blob", "--", argument])?.subcommand == .blob)
    }

    @Test func argumentsInMessagesAreEscapedAndCut() {
        #expect(ArgumentParser.shown("a\u{1b}[2J\n\u{7f}\u{85}é") == "'a\\u{1b}[2J\\u{a}\\u{7f}\\u{85}é'")
        #expect(
            ArgumentParser.shown(String(repeating: "x", count: 200)) == "'" + String(repeating: "x", count: 80) + "…'")
    }

    // MARK: - compact, gc, verify, config

    @Test func maintenanceSubcommandsWithoutOptions() throws {
        #expect(try parse(["compact"]).command == .run(CompactCommand(json: false)))
        #expect(try parse(["compact", "--json"]).command == .run(CompactCommand(json: true)))
        #expect(try parse(["gc"]).command == .run(CollectGarbageCommand()))
        #expect(try parse(["verify"]).command == .run(VerifyCommand(repair: false, json: false)))
        #expect(try parse(["verify", "--repair", "--json"]).command == .run(VerifyCommand(repair: true, json: true)))
        #expect(try parse(["config"]).command == .run(ConfigCommand(json: false)))
        #expect(try parse(["config", "--json"]).command == .run(ConfigCommand(json: true)))
    }

    @Test func gcOptions() throws {
        let all = try parse([
            "gc", "--capacity", "500M", "--max-entries", "1000", "--max-age", "7d", "--grace", "30s", "--dry-run",
            "--json",
        ])
        #expect(
            all.command
                == .run(
                    CollectGarbageCommand(
                        capacity: 500 << 20, maxEntries: 1000, maxAge: .seconds(7 * 86_400), grace: .seconds(30),
                        dryRun: true, json: true)))
        #expect(
            try parse(["gc", "--capacity=1.5G", "--store", "/s"]).command
                == .run(CollectGarbageCommand(capacity: 1_610_612_736)))
        #expect(try parse(["gc", "--grace", "0"]).command == .run(CollectGarbageCommand(grace: .zero)))
        // The last of a repeated option wins.
        #expect(
            try parse(["gc", "--capacity", "1M", "--capacity", "2M"]).command
                == .run(CollectGarbageCommand(capacity: 2 << 20)))
    }

    @Test func configOptionsSetOrRemoveEachLimit() throws {
        #expect(
            try parse([
                "config", "--capacity", "5M", "--max-entries", "10000", "--max-age", "15m", "--low-water", "0.75",
            ])
            .command
                == .run(
                    ConfigCommand(
                        capacity: .set(5 << 20), maxEntries: .set(10_000), maxAge: .set(.seconds(900)), lowWater: 0.75))
        )
        #expect(
            try parse(["config", "--capacity", "none", "--max-entries=none", "--max-age", "none", "--json"]).command
                == .run(ConfigCommand(capacity: .remove, maxEntries: .remove, maxAge: .remove, json: true)))
        #expect(try parse(["config", "--low-water", "1"]).command == .run(ConfigCommand(lowWater: 1)))
        #expect(
            try parse(["config", "--low-water", "0.5"]).command == .run(ConfigCommand(lowWater: 0.5)))
    }

    @Test func gcOptionsOverrideTheRecordedLimitsFieldByField() {
        let recorded = EvictionLimits(capacity: 1 << 30, maxEntries: 500, maxAge: .seconds(3600), lowWater: 0.8)
        #expect(CollectGarbageCommand().limits(over: recorded) == recorded)
        #expect(
            CollectGarbageCommand(capacity: 1 << 20).limits(over: recorded)
                == EvictionLimits(capacity: 1 << 20, maxEntries: 500, maxAge: .seconds(3600), lowWater: 0.8))
        #expect(
            CollectGarbageCommand(maxEntries: 7, maxAge: .seconds(1)).limits(over: EvictionLimits())
                == EvictionLimits(maxEntries: 7, maxAge: .seconds(1)))
    }

    @Test func configChangesKeepTheOtherLimits() {
        let recorded = EvictionLimits(capacity: 1 << 30, maxEntries: 500, maxAge: .seconds(3600), lowWater: 0.8)
        #expect(ConfigCommand().changesNothing)
        #expect(ConfigCommand().applied(to: recorded) == recorded)
        #expect(!ConfigCommand(lowWater: 0.9).changesNothing)
        #expect(
            ConfigCommand(capacity: .set(5 << 20), maxAge: .remove).applied(to: recorded)
                == EvictionLimits(capacity: 5 << 20, maxEntries: 500, maxAge: nil, lowWater: 0.8))
        #expect(
            ConfigCommand(maxEntries: .remove, lowWater: 0.95).applied(to: recorded)
                == EvictionLimits(capacity: 1 << 30, maxEntries: nil, maxAge: .seconds(3600), lowWater: 0.95))
    }

    @Test func maintenanceOptionsBelongToTheirSubcommands() {
        #expect(
            error(["verify", "--capacity", "1M"])
                == CommandLineError("Unknown option '--capacity'", subcommand: .verify))
        #expect(error(["compact", "--repair"]) == CommandLineError("Unknown option '--repair'", subcommand: .compact))
        #expect(
            error(["gc", "--low-water", "0.9"]) == CommandLineError("Unknown option '--low-water'", subcommand: .gc))
        #expect(
            error(["config", "--grace", "1h"]) == CommandLineError("Unknown option '--grace'", subcommand: .config))
        #expect(error(["config", "--dry-run"]) == CommandLineError("Unknown option '--dry-run'", subcommand: .config))
        #expect(error(["ls", "--repair"]) == CommandLineError("Unknown option '--repair'", subcommand: .ls))
        #expect(error(["--capacity", "1M", "gc"]) == CommandLineError("Unknown option '--capacity'", subcommand: nil))
        #expect(error(["verify", "extra"]) == CommandLineError("Unexpected argument 'extra'", subcommand: .verify))
        #expect(error(["verify", "--repair=yes"])?.message == "The option '--repair' takes no value")
        #expect(error(["gc", "--dry-run=no"])?.message == "The option '--dry-run' takes no value")
    }

    @Test func badSizeValuesNameTheOptionAndTheAcceptedForms() {
        let forms =
            "Use a number of bytes, optionally with a unit K, M, G or T (powers of 1024; also written KB or KiB), "
            + "e.g. 1048576, 500M or 1.5G"
        #expect(
            error(["gc", "--capacity=-5M"])
                == CommandLineError(
                    "The value '-5M' is invalid for '--capacity <size>': it is negative. " + forms, subcommand: .gc))
        #expect(
            error(["config", "--capacity", "5Q"])
                == CommandLineError(
                    "The value '5Q' is invalid for '--capacity <size>': 'Q' is not a unit. " + forms + ", or none",
                    subcommand: .config))
        #expect(
            error(["gc", "--capacity", "0"])?.message
                == "The value '0' is invalid for '--capacity <size>': the capacity must be at least 1 byte. " + forms)
        #expect(
            error(["gc", "--capacity", "16777216T"])?.message
                == "The value '16777216T' is invalid for '--capacity <size>': it is more than 16 EiB "
                + "(18446744073709551615 bytes). " + forms)
        #expect(
            error(["gc", "--capacity=", "x"])?.message.hasPrefix(
                "The value '' is invalid for '--capacity <size>': it is empty.") == true)
        #expect(error(["gc", "--capacity", "none"])?.message.hasPrefix("The value 'none' is invalid") == true)
        // A value may not start with '-' unless given as --name=value, as for every option.
        #expect(error(["gc", "--capacity", "-5M"])?.message == "Missing value for '--capacity <size>'")
        #expect(error(["gc", "--capacity"])?.message == "Missing value for '--capacity <size>'")
    }

    @Test func badDurationCountAndFractionValues() {
        let durationForms =
            "Use a number with a unit ms, s, m, h, d or w (a plain number is seconds), e.g. 500ms, 30s, 15m, 2h or 7d"
        #expect(
            error(["gc", "--max-age", "3M"])?.message
                == "The value '3M' is invalid for '--max-age <duration>': 'M' is not a unit. " + durationForms)
        #expect(
            error(["gc", "--grace", "soon"])?.message
                == "The value 'soon' is invalid for '--grace <duration>': it does not start with a number. "
                + durationForms)
        #expect(
            error(["config", "--max-age", "0s"])?.message
                == "The value '0s' is invalid for '--max-age <duration>': the maximum age must be at least 1ms. "
                + durationForms + ", or none")
        #expect(
            error(["gc", "--max-age", "106752d"])?.message
                == "The value '106752d' is invalid for '--max-age <duration>': it is more than 106751 days. "
                + durationForms)
        #expect(
            error(["config", "--max-entries", "1.5"])?.message
                == "The value '1.5' is invalid for '--max-entries <n>': it must be a whole number. "
                + "Use a whole number, e.g. 10000, or none")
        #expect(
            error(["gc", "--max-entries", "0"])?.message
                == "The value '0' is invalid for '--max-entries <n>': the limit must be at least 1 entry. "
                + "Use a whole number, e.g. 10000")
        #expect(
            error(["gc", "--max-entries", "10k"])?.message.hasPrefix(
                "The value '10k' is invalid for '--max-entries <n>': 'k' is not a unit.") == true)
        #expect(
            error(["gc", "--max-entries", "9223372036854775808"])?.message.hasPrefix(
                "The value '9223372036854775808' is invalid for '--max-entries <n>': it is more than "
                    + "9223372036854775807.") == true)
        #expect(
            error(["config", "--low-water", "0.3"])?.message
                == "The value '0.3' is invalid for '--low-water <fraction>': it is not from 0.5 to 1. "
                + "Use a decimal number from 0.5 to 1, e.g. 0.9")
        for bad in ["1.01", "none", "nan", "inf", "0x1p-1", "90%", "1e0"] {
            #expect(
                error(["config", "--low-water", bad])?.message.hasPrefix(
                    "The value '\(bad)' is invalid for '--low-water <fraction>'")
                    == true, "\(bad)")
        }
    }

    @Test func helpOnTheMaintenanceSubcommands() throws {
        for subcommand in [Subcommand.compact, .gc, .verify, .config] {
            #expect(try parse([subcommand.rawValue, "--help"]).command == .help(subcommand))
            #expect(try parse(["help", subcommand.rawValue]).command == .help(subcommand))
        }
        // Help wins over a bad value on the same line.
        #expect(try parse(["gc", "--capacity", "lots", "-h"]).command == .help(.gc))

        let root = HelpText.root()
        for name in ["compact", "gc", "verify", "config"] { #expect(root.contains("\n  \(name) ")) }

        let gc = HelpText.subcommand(.gc)
        #expect(
            gc.contains(
                "USAGE: blobstore gc [--store <dir>] [--durability <mode>] [--capacity <size>] [--max-entries <n>] "
                    + "[--max-age <duration>] [--grace <duration>] [--dry-run] [--json]"))
        // The help's claims, whatever the line breaks.
        let gcText = gc.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(
            gcText.contains(
                "--grace <duration> Keep unreferenced blobs and temporary files younger than this. (default: 1h)"))
        #expect(gcText.contains("Without limit options the limits recorded in the store apply"))
        #expect(gcText.contains("each limit option overrides the recorded limit for this run only and records nothing"))
        #expect(gcText.contains("down to the low-water mark (0.9 of each limit unless configured)"))
        for option in [
            "--capacity <size>", "--max-entries <n>", "--max-age <duration>", "--grace <duration>", "--dry-run",
            "--json",
        ] {
            #expect(gc.contains("\n  \(option)"), "\(option)")
        }

        let config = HelpText.subcommand(.config)
        let configText = config.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(configText.contains("from 0.5 to 1. (default: 0.9)"))
        #expect(configText.contains("With no option, shows the limits recorded in the store."))
        for option in [
            "--capacity <size>|none", "--max-entries <n>|none", "--max-age <duration>|none", "--low-water <fraction>",
        ] {
            #expect(config.contains("\n  \(option)"), "\(option)")
        }
        #expect(
            HelpText.subcommand(.verify).split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(
                "Without --repair nothing is changed and the command exits 65"))
        #expect(HelpText.subcommand(.verify).contains("\n  --repair"))
        #expect(
            HelpText.subcommand(.compact).contains(
                "USAGE: blobstore compact [--store <dir>] [--durability <mode>] [--json]"))
    }

    @Test func usageErrorText() {
        let text = HelpText.usageError(CommandLineError("Missing expected argument '<key>'", subcommand: .get))
        #expect(
            text == """
                Error: Missing expected argument '<key>'
                Usage: blobstore get [--store <dir>] [--durability <mode>] <key> ... [-o <file>] [--range <first>-<last>]
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
        #expect(ExitCode.forError(.tooLarge) == 73, "a value the store cannot take is no usage error")
        #expect(ExitCode.forError(.invalidArgument) == 64)
        #expect(ExitCode.forError(.notAStore) == 74)
        #expect(ExitCode.forError(.notFound) == 74)
        #expect(ExitCode.forError(.unsupportedVersion) == 74)
    }
}
