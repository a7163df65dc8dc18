/// Something a crash-torture round found wrong: a worker's read, or the driver's check after the
/// round.
struct Finding: Equatable, CustomStringConvertible {
    enum Kind: String {
        /// An acknowledged put or remove that a later read did not see.
        case lost
        /// Bytes that are not the value of any version the key had.
        case wrongBytes = "wrong-bytes"
        /// The store did not open, opening or `verify()` found damage (a torn tail is fine), or a
        /// process set damage aside in `quarantine/`.
        case recoveryFailure = "recovery-failure"
        /// An operation threw, or a worker died or hung without being killed.
        case error
    }

    var kind: Kind
    var detail: String

    var description: String { "\(kind.rawValue) \(detail)" }

    init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// Parses `description`.
    init?(parsing text: Substring) {
        let parts = text.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let kind = Kind(rawValue: String(parts[0])) else { return nil }
        self.init(kind, String(parts[1]))
    }
}
