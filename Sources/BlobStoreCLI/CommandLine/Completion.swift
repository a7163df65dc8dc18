/// What a shell offers for an option's value or an argument (``CompletionScript``).
enum Completion: Equatable, Sendable {
    /// Free text, such as a key or a URL: nothing is offered.
    case anything
    /// A path to a file (directories too, to reach one).
    case file
    /// A path to a directory.
    case directory
    /// One of these words, such as the durability modes.
    case words([String])
}
