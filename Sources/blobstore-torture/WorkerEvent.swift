/// One line a crash-torture worker writes to standard output, with one `write(2)`, so that the
/// lines written before a SIGKILL are all there and whole. Keys are indexes into the worker's
/// key space.
///
///     put 3 2000017          about to put version 2000017 under key 3
///     ack put 3 2000017      that put returned
///     rm 3                   about to remove key 3
///     ack rm 3 1             the remove returned (1: the key was there, 0: it was not)
///     ack get 3 hit          a read returned the expected value (or `miss`: expected nothing)
///     ack compact            a compaction returned
///     ack gc                 a garbage collection returned
///     finding lost …         the worker's own check failed (`Finding`)
///     done                   every operation returned and the store closed
enum WorkerEvent: Equatable {
    case willPut(key: Int, version: Int)
    case put(key: Int, version: Int)
    case willRemove(key: Int)
    case removed(key: Int, existed: Bool)
    case read(key: Int, hit: Bool)
    case compacted
    case collected
    case found(Finding)
    case done

    var line: String {
        switch self {
        case .willPut(let key, let version): "put \(key) \(version)"
        case .put(let key, let version): "ack put \(key) \(version)"
        case .willRemove(let key): "rm \(key)"
        case .removed(let key, let existed): "ack rm \(key) \(existed ? 1 : 0)"
        case .read(let key, let hit): "ack get \(key) \(hit ? "hit" : "miss")"
        case .compacted: "ack compact"
        case .collected: "ack gc"
        case .found(let finding): "finding \(finding)"
        case .done: "done"
        }
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
        case ("put", _, 3, 2): self = .willPut(key: numbers[0], version: numbers[1])
        case ("ack", "put", 4, 2): self = .put(key: numbers[0], version: numbers[1])
        case ("rm", _, 2, 1): self = .willRemove(key: numbers[0])
        case ("ack", "rm", 4, 2) where numbers[1] == 0 || numbers[1] == 1:
            self = .removed(key: numbers[0], existed: numbers[1] == 1)
        case ("ack", "get", 4, 1) where words[3] == "hit" || words[3] == "miss":
            self = .read(key: numbers[0], hit: words[3] == "hit")
        case ("ack", "compact", 2, 0): self = .compacted
        case ("ack", "gc", 2, 0): self = .collected
        case ("done", _, 1, 0): self = .done
        default: return nil
        }
    }
}
