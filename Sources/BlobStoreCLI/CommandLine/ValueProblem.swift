/// Why a value does not parse: thrown by a ``ValueParser`` and turned into a
/// ``CommandLineError`` by the parser, which knows the option or argument it was given to.
struct ValueProblem: Error, Equatable, Sendable {
    /// What is wrong with the value, for `The value 'x' is invalid for '<label>': <reason>.`; `nil`
    /// when the accepted forms say enough.
    var reason: String?
    /// A whole message instead of the usual one (`Unknown subcommand 'x'` for `help x`).
    var message: String?

    init(_ reason: String? = nil) {
        self.reason = reason
    }

    init(message: String) {
        self.message = message
    }

    /// The message for `text` given to `label`: `The value 'text' is invalid for 'label': reason.
    /// Use forms`, each part when there is one; `text` is quoted with
    /// ``ArgumentParser/shown(_:)``.
    func message(for text: String, label: String, forms: String?) -> String {
        if let message { return message }
        return "The value \(ArgumentParser.shown(text)) is invalid for '\(label)'"
            + (reason.map { ": \($0)" } ?? "") + (forms.map { ". Use \($0)" } ?? "")
    }
}
