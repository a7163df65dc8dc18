/// What the help, the usage line and the completion scripts show of one option: the part of an
/// ``OptionSpec`` that does not depend on the value it is read into.
struct OptionHelp: Equatable, Sendable {
    /// Where the option appears in the usage line.
    enum Usage: Equatable, Sendable {
        /// In brackets: `[--grace <duration>]`.
        case optional
        /// Without brackets, as one the subcommand needs: `--origin <url>` (``CommandSpec`` checks it).
        case required
        /// Not at all: in the help's list only (`-q`, the remote options).
        case hidden
    }

    /// The names, a short one first: `["-o", "--output"]`. The last, long one names the option
    /// in messages.
    var names: [String]
    /// The value's name, `<file>`, or `nil` for a flag.
    var valueName: String?
    /// Shown after the value name in the help and the usage line: `|none`, or nothing.
    var valueSuffix = ""
    /// The help text, a sentence or two.
    var text: String
    /// The default, shown as ` (default: …)` after ``text``, or `nil`.
    var defaultText: String?
    /// Whether each occurrence adds a value (`--header`), shown as `...` in the usage line.
    var isRepeatable = false
    var usage = Usage.optional
    /// What a shell offers for the value.
    var completion = Completion.anything

    /// The name messages use: the long one.
    var name: String { names[names.count - 1] }

    /// `--store <dir>` in messages (`Missing value for '--store <dir>'`); the name alone when the
    /// value name has quotes of its own (`'<name>: <value>'`).
    var label: String {
        guard let valueName, !valueName.hasPrefix("'") else { return name }
        return name + " " + valueName
    }

    /// The help list's label: `-o, --output <file>`, `--capacity <size>|none`.
    var helpLabel: String {
        names.joined(separator: ", ") + (valueName.map { " " + $0 + valueSuffix } ?? "")
    }

    /// The help list's text, with the default.
    var helpText: String { text + (defaultText.map { " (default: \($0))" } ?? "") }

    /// The usage line's form, `[-o <file>]`, `--origin <url>`, `[--header '<name>: <value>']...`,
    /// or `nil` when hidden.
    var usageForm: String? {
        let spelled = names[0] + (valueName.map { " " + $0 + valueSuffix } ?? "")
        switch usage {
        case .optional: return "[\(spelled)]" + (isRepeatable ? "..." : "")
        case .required: return spelled + (isRepeatable ? "..." : "")
        case .hidden: return nil
        }
    }
}
