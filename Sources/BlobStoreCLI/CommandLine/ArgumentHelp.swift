/// What the help, the usage line and the completion scripts show of one argument: the part of an
/// ``ArgumentSpec`` that does not depend on the value it is read into.
struct ArgumentHelp: Equatable, Sendable {
    /// How many words the argument takes. A subcommand's required arguments come first, and only
    /// the last may take more than one.
    enum Arity: Equatable, Sendable {
        case required
        case optional
        /// One or more: every word left.
        case oneOrMore
    }

    /// `<key>`: the name in messages (`The value 'x' is invalid for '<digest>'`).
    var name: String
    var text: String
    /// The default, shown as ` (default: …)` after ``text``, or `nil`.
    var defaultText: String?
    var arity: Arity
    /// What a shell offers.
    var completion: Completion

    /// The help list's label, which `Missing expected argument '…'` quotes too: `<key> ...` for
    /// one or more.
    var helpLabel: String { arity == .oneOrMore ? name + " ..." : name }

    /// The help list's text, with the default.
    var helpText: String { text + (defaultText.map { " (default: \($0))" } ?? "") }

    /// The usage line's form: `<key>`, `[<file>]`, `<key> ...`; an argument that takes only one
    /// word shows that word (`remote ping`).
    var usageForm: String {
        if case .words(let words) = completion, words.count == 1 { return words[0] }
        switch arity {
        case .required: return name
        case .optional: return "[\(name)]"
        case .oneOrMore: return name + " ..."
        }
    }
}
