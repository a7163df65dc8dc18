import BlobStore

/// Turns the command line (without the program name) into an ``Invocation``. Pure: no I/O.
///
/// The grammar is `blobstore [<options>] <subcommand> [<options>] [<arguments>]`:
/// - `--store <dir>` and `--durability <mode>` may come before or after the subcommand;
///   `--name=value` works too. A value may not start with `-` (except `-` itself) unless given
///   as `--name=value`.
/// - `-h`/`--help` anywhere asks for help on the subcommand (or the overview); it wins over
///   any other mistake on the line.
/// - `--version` is valid only without a subcommand.
/// - `--` ends the options: everything after it is an argument, so keys may start with `-`.
public enum ArgumentParser {
    /// Parses `arguments`.
    ///
    /// - Parameter arguments: The command line without the program name.
    /// - Returns: What to run.
    /// - Throws: ``CommandLineError`` for an unknown option or subcommand, a missing or extra
    ///   argument, or a bad option value.
    public static func parse(_ arguments: [String]) throws(CommandLineError) -> Invocation {
        var options = GlobalOptions()
        var subcommand: Subcommand?
        var positionals: [String] = []
        var json = false
        var output: String?
        var helpRequested = false
        var versionRequested = false
        var firstError: CommandLineError?
        var optionsEnded = false
        var index = 0

        func fail(_ message: String) {
            if firstError == nil { firstError = CommandLineError(message, subcommand: subcommand) }
        }

        scanning: while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                if subcommand == nil {
                    guard let named = Subcommand(rawValue: argument) else {
                        // Help wins over any other mistake: `blobstore frob --help` shows the overview.
                        if arguments[index...].contains(where: { $0 == "-h" || $0 == "--help" }) {
                            helpRequested = true
                        }
                        fail("Unknown subcommand '\(argument)'")
                        break scanning
                    }
                    subcommand = named
                } else {
                    positionals.append(argument)
                }
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }

            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            /// The option's value: inline, or the next argument unless that is an option (`-` alone,
            /// standard input or output, is a value).
            func value(_ label: String) -> String? {
                if let inlineValue { return inlineValue }
                if index < arguments.count, !arguments[index].hasPrefix("-") || arguments[index] == "-" {
                    index += 1
                    return arguments[index - 1]
                }
                fail("Missing value for '\(label)'")
                return nil
            }
            func flag() -> Bool {
                guard inlineValue == nil else {
                    fail("The option '\(name)' takes no value")
                    return false
                }
                return true
            }

            switch name {
            case "-h", "--help":
                helpRequested = true
            case "--version":
                if flag() { versionRequested = true }
            case "--store":
                if let directory = value("--store <dir>") {
                    if directory.isEmpty {
                        fail("The value '' is invalid for '--store <dir>'")
                    } else {
                        options.store = directory
                    }
                }
            case "--durability":
                if let mode = value("--durability <mode>") {
                    if let durability = Durability(rawValue: mode) {
                        options.durability = durability
                    } else {
                        fail("The value '\(mode)' is invalid for '--durability <mode>'. Use none, batched or always")
                    }
                }
            case "--json" where subcommand == .ls || subcommand == .stats:
                if flag() { json = true }
            case "-o" where subcommand == .get, "--output" where subcommand == .get:
                if let file = value("--output <file>") {
                    if file.isEmpty {
                        fail("The value '' is invalid for '--output <file>'")
                    } else {
                        output = file
                    }
                }
            default:
                fail("Unknown option '\(name)'")
            }
        }

        if helpRequested {
            return Invocation(options: options, command: .help(subcommand))
        }
        if let firstError { throw firstError }
        guard let subcommand else {
            return Invocation(options: options, command: versionRequested ? .version : .help(nil))
        }
        if versionRequested {
            throw CommandLineError("The option '--version' takes no subcommand", subcommand: subcommand)
        }
        let command = try makeCommand(subcommand, positionals, json: json, output: output)
        return Invocation(options: options, command: command)
    }

    /// Checks the number of arguments and builds the command.
    private static func makeCommand(
        _ subcommand: Subcommand, _ positionals: [String], json: Bool, output: String?
    ) throws(CommandLineError) -> Command {
        let names = subcommand.arguments.map(\.label)
        let required = [.put, .get, .has, .rm].contains(subcommand) ? 1 : 0
        if positionals.count < required {
            throw CommandLineError("Missing expected argument '\(names[positionals.count])'", subcommand: subcommand)
        }
        if positionals.count > names.count {
            throw CommandLineError("Unexpected argument '\(positionals[names.count])'", subcommand: subcommand)
        }
        let first = positionals.first
        let second = positionals.count > 1 ? positionals[1] : nil
        switch subcommand {
        case .put: return .put(key: positionals[0], file: second)
        case .get: return .get(key: positionals[0], output: output)
        case .has: return .has(key: positionals[0])
        case .rm: return .remove(key: positionals[0])
        case .ls: return .list(json: json)
        case .stats: return .stats(json: json)
        case .demo: return .demo(directory: first)
        case .help:
            guard let first else { return .help(nil) }
            guard let topic = Subcommand(rawValue: first) else {
                throw CommandLineError("Unknown subcommand '\(first)'", subcommand: .help)
            }
            return .help(topic)
        }
    }
}
