/// The help, usage and error text, laid out the way swift-argument-parser lays it out, derived
/// from the subcommands' specs (``CommandHelp``) and ``GlobalOptions/options``.
enum HelpText {
    static let overview =
        "A content-addressed blob store: keys map to SHA-256 digests, and each distinct content "
        + "is stored once."

    /// `blobstore [--store <dir>] [--durability <mode>] <subcommand>`.
    static var rootUsage: String {
        (["blobstore"] + GlobalOptions.options.compactMap(\.help.usageForm) + ["<subcommand>"]).joined(separator: " ")
    }

    /// `blobstore --help`.
    static func root() -> String {
        var text = "OVERVIEW: \(overview)\n\n"
        text += "USAGE: \(rootUsage)\n\n"
        text += "OPTIONS:\n"
        text += list(
            (GlobalOptions.options.map(\.help) + [ArgumentParser.versionOption, ArgumentParser.helpOption]).map(
                optionItem))
        text += "\nSUBCOMMANDS:\n"
        text += list(Subcommand.allCases.map { ($0.rawValue, $0.help.abstract) })
        text += "\n  See 'blobstore help <subcommand>' for detailed help.\n"
        return text
    }

    /// `blobstore help <subcommand>`, `blobstore <subcommand> --help`.
    static func subcommand(_ subcommand: Subcommand) -> String {
        let help = subcommand.help
        var text = "OVERVIEW: \(help.abstract)\n\n"
        if !help.discussion.isEmpty {
            text += wrap(help.discussion, indent: 0) + "\n\n"
        }
        text += "USAGE: blobstore \(help.usage)\n\n"
        if !help.arguments.isEmpty {
            text += "ARGUMENTS:\n" + list(help.arguments.map { ($0.helpLabel, $0.helpText) }) + "\n"
        }
        text += "OPTIONS:\n" + list(help.allOptions.map(optionItem))
        return text
    }

    /// A usage error, for standard error.
    static func usageError(_ error: CommandLineError) -> String {
        let usage = error.subcommand.map { "blobstore " + $0.help.usage } ?? rootUsage
        let helpCommand = error.subcommand.map { "blobstore \($0.rawValue) --help" } ?? "blobstore --help"
        return "Error: \(error.message)\nUsage: \(usage)\n  See '\(helpCommand)' for more information.\n"
    }

    /// `words` joined for a sentence: `a`, `a or b`, `a, b or c` (with `conjunction` `or`).
    static func series(_ words: [String], _ conjunction: String) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }

    // MARK: - Layout

    private static func optionItem(_ option: OptionHelp) -> (label: String, help: String) {
        (option.helpLabel, option.helpText)
    }

    /// Labels in a column 26 wide; help text wrapped at 80 columns.
    private static func list(_ items: [(label: String, help: String)]) -> String {
        let column = 26
        var text = ""
        for item in items {
            let label = "  " + item.label
            let help = wrap(item.help, indent: column)
            if label.count < column - 1 {
                text += label + String(repeating: " ", count: column - label.count)
                text += help.dropFirst(column) + "\n"
            } else {
                text += label + "\n" + help + "\n"
            }
        }
        return text
    }

    /// `text` broken into lines of at most 80 columns, each indented by `indent` spaces.
    private static func wrap(_ text: String, indent: Int) -> String {
        let width = 80
        let padding = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = padding
        for word in text.split(separator: " ") {
            if line.count > indent, line.count + 1 + word.count > width {
                lines.append(line)
                line = padding
            }
            line += (line.count > indent ? " " : "") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
