/// One line a crash-torture worker writes to standard output, with one `write(2)`, so that the
/// lines written before a SIGKILL are all there and whole, after the time it was written
/// (`MonotonicClock`, `WorkerLog`). Keys are indexes into the worker's key space. Every operation
/// has a line before it and one after it returned:
///
///     opened                 the store is open
///     put 3 2000017          about to put version 2000017 under key 3
///     ack put 3 2000017      that put returned
///     rm 3                   about to remove key 3
///     ack rm 3 1             the remove returned (1: the key was there, 0: it was not)
///     get 3                  about to read key 3
///     ack get 3 hit          the read returned the expected value (or `miss`: it found nothing)
///     compact, gc            about to compact, to collect garbage
///     ack compact, ack gc    that returned
///     evict                  about to collect garbage with an eviction limit
///     ack evict 12           that returned, having evicted 12 entries
///     finding lost …         the worker's own check failed (`Finding`)
///     close                  about to close the store
///     done                   the store closed
enum WorkerEvent: Equatable {
    case opened
    case will(Operation)
    case put(key: Int, version: Int)
    case removed(key: Int, existed: Bool)
    case read(key: Int, hit: Bool)
    case compacted
    case collected
    case evicted(entries: Int)
    case found(Finding)
    case closing
    case done

    /// An operation about to start.
    enum Operation: Equatable {
        case put(key: Int, version: Int)
        case remove(key: Int)
        case read(key: Int)
        case compact
        case collect
        case evict

        /// The command's name: `put`, `rm`, `get`, `compact`, `gc`, `evict`.
        var name: String {
            switch self {
            case .put: "put"
            case .remove: "rm"
            case .read: "get"
            case .compact: "compact"
            case .collect: "gc"
            case .evict: "evict"
            }
        }
    }

    var line: String {
        switch self {
        case .opened: "opened"
        case .will(.put(let key, let version)): "put \(key) \(version)"
        case .will(.remove(let key)), .will(.read(let key)): "\(operationName) \(key)"
        case .will: operationName
        case .put(let key, let version): "ack put \(key) \(version)"
        case .removed(let key, let existed): "ack rm \(key) \(existed ? 1 : 0)"
        case .read(let key, let hit): "ack get \(key) \(hit ? "hit" : "miss")"
        case .compacted: "ack compact"
        case .collected: "ack gc"
        case .evicted(let entries): "ack evict \(entries)"
        case .found(let finding): "finding \(finding)"
        case .closing: "close"
        case .done: "done"
        }
    }

    /// Whether the line says an operation returned (`ack …`).
    var isAcknowledgement: Bool {
        switch self {
        case .put, .removed, .read, .compacted, .collected, .evicted: true
        case .opened, .will, .found, .closing, .done: false
        }
    }

    private var operationName: String {
        if case .will(let operation) = self { operation.name } else { "" }
    }

    init?(line: Substring) {
        if line.hasPrefix("finding ") {
            guard let finding = Finding(parsing: line.dropFirst(8)) else { return nil }
            self = .found(finding)
            return
        }
        let words = line.split(separator: " ").map(String.init)
        let numbers = words.compactMap { Int($0) }
        switch (words.first, words.dropFirst().first, words.count, numbers.count) {
        case ("opened", _, 1, 0): self = .opened
        case ("put", _, 3, 2): self = .will(.put(key: numbers[0], version: numbers[1]))
        case ("rm", _, 2, 1): self = .will(.remove(key: numbers[0]))
        case ("get", _, 2, 1): self = .will(.read(key: numbers[0]))
        case ("compact", _, 1, 0): self = .will(.compact)
        case ("gc", _, 1, 0): self = .will(.collect)
        case ("evict", _, 1, 0): self = .will(.evict)
        case ("ack", "put", 4, 2): self = .put(key: numbers[0], version: numbers[1])
        case ("ack", "rm", 4, 2) where numbers[1] == 0 || numbers[1] == 1:
            self = .removed(key: numbers[0], existed: numbers[1] == 1)
        case ("ack", "get", 4, 1) where words[3] == "hit" || words[3] == "miss":
            self = .read(key: numbers[0], hit: words[3] == "hit")
        case ("ack", "compact", 2, 0): self = .compacted
        case ("ack", "gc", 2, 0): self = .collected
        case ("ack", "evict", 3, 1) where numbers[0] >= 0: self = .evicted(entries: numbers[0])
        case ("close", _, 1, 0): self = .closing
        case ("done", _, 1, 0): self = .done
        default: return nil
        }
    }
}
