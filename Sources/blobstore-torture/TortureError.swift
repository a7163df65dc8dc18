/// A crash-torture run that cannot start, with a message that says why.
struct TortureError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
