// The fish script: one `complete -c blobstore` line per subcommand, option and argument, each
// with the condition of the subcommand it belongs to.

extension CompletionScript {
    /// The fish script.
    static func fish() -> String {
        let names = Subcommand.allCases.map(\.rawValue).joined(separator: " ")
        let before = "not __fish_seen_subcommand_from \(names)"
        var lines = [
            "# fish completion for blobstore, written by 'blobstore completions fish'.",
            "# Load it with: blobstore completions fish | source",
            "",
            "# No file unless an option or an argument takes one.",
            "complete -c blobstore -f",
            "",
            "# Before a subcommand: the subcommands and the global options.",
        ]
        for subcommand in Subcommand.allCases {
            lines.append(
                "complete -c blobstore -n \(quoted(before)) -a \(subcommand.rawValue) -d "
                    + quoted(summary(subcommand.help.abstract)))
        }
        lines += rootOptions.map { optionLine($0, condition: before) }
        for subcommand in Subcommand.allCases {
            let help = subcommand.help
            let condition = "__fish_seen_subcommand_from \(subcommand.rawValue)"
            lines.append("")
            lines.append("# \(subcommand.rawValue)")
            lines += help.allOptions.map { optionLine($0, condition: condition) }
            // The arguments, whichever comes next: fish does not count them.
            for argument in help.arguments where argument.completion != .anything {
                lines.append(
                    "complete -c blobstore -n \(quoted(condition)) \(values(argument.completion)) -d "
                        + quoted(summary(argument.text)))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `option`'s line: its names, `-r` and its values when it takes one, and its summary.
    private static func optionLine(_ option: OptionHelp, condition: String) -> String {
        let names = option.names.map { $0.hasPrefix("--") ? "-l " + $0.dropFirst(2) : "-s " + $0.dropFirst() }
        let value = option.valueName == nil ? "" : " -r " + values(option.completion)
        return "complete -c blobstore -n \(quoted(condition)) \(names.joined(separator: " "))\(value) -d "
            + quoted(summary(option.text))
    }

    /// What fish offers: files (`-F`), directories, words, or nothing.
    private static func values(_ completion: Completion) -> String {
        switch completion {
        case .anything: "-f"
        case .file: "-F"
        case .directory: "-f -a " + quoted("(__fish_complete_directories (commandline -ct))")
        case .words(let words): "-f -a " + quoted(words.joined(separator: " "))
        }
    }

    /// `text` in single quotes for fish, which escapes only `\` and `'` in them.
    private static func quoted(_ text: String) -> String {
        var result = "'"
        for character in text {
            if character == "\\" || character == "'" { result.append("\\") }
            result.append(character)
        }
        return result + "'"
    }
}
