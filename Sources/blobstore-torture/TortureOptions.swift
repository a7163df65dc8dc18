import BlobStore

/// The options of `blobstore-torture torture`.
struct TortureOptions {
    static let usage =
        "blobstore-torture torture --store DIR [--rounds N] [--workers W] [--seed S] [--durability MODE] "
        + "[--eviction on|off]"

    /// A new or empty directory; the round logs go to `<store>.logs`.
    var store = ""
    var rounds = 100
    var workers = 3
    var seed = UInt64.random(in: 0...UInt64.max)
    /// `nil` (`--durability mixed`, the default): each worker of each round draws a mode.
    var durability: Durability? = nil
    /// Whether some of the workers' collections evict (`--eviction on`, the default): the checker
    /// then accepts an acknowledged value's absence only where an evicting collection overlapped
    /// the time between its put and the read that missed it (`TortureChecker`).
    var eviction = true

    /// Parses `arguments` (after `torture`); `nil` when they are not valid.
    init?(_ arguments: [String]) {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            guard let value = rest.popFirst() else { return nil }
            switch option {
            case "--store": store = value
            case "--rounds": guard let number = Int(value), number > 0 else { return nil }; rounds = number
            case "--workers": guard let number = Int(value), number > 0 else { return nil }; workers = number
            case "--seed": guard let number = UInt64(value) else { return nil }; seed = number
            case "--durability":
                guard value == "mixed" || Durability(rawValue: value) != nil else { return nil }
                durability = Durability(rawValue: value)
            case "--eviction":
                guard value == "on" || value == "off" else { return nil }
                eviction = value == "on"
            default: return nil
            }
        }
        if store.isEmpty { return nil }
    }
}
