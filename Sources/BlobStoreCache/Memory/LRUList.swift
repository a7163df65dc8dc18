import BlobStore

/// Values by key in recency order, with O(1) insert, lookup, promotion and removal of the least
/// recent: a doubly linked list threaded through a dictionary by key (no reference types).
struct LRUList<Value> {
    private struct Node {
        var value: Value
        /// The next more recent key, or `nil` for the most recent.
        var newer: StoreKey?
        /// The next less recent key, or `nil` for the least recent.
        var older: StoreKey?
    }

    private var nodes: [StoreKey: Node] = [:]
    private(set) var mostRecent: StoreKey?
    private(set) var leastRecent: StoreKey?

    var count: Int { nodes.count }

    /// The value under `key`, without changing its recency.
    func peek(_ key: StoreKey) -> Value? { nodes[key]?.value }

    /// Changes the value under `key` in place, if there is one, without changing its recency.
    mutating func modify(_ key: StoreKey, _ change: (inout Value) -> Void) {
        guard nodes[key] != nil else { return }
        change(&nodes[key]!.value)
    }

    /// The value under `key`, which becomes the most recent.
    mutating func use(_ key: StoreKey) -> Value? {
        guard let value = nodes[key]?.value else { return nil }
        unlink(key)
        linkAsMostRecent(key, value)
        return value
    }

    /// Inserts or replaces `value` as the most recent; returns the value it replaced.
    @discardableResult
    mutating func set(_ value: Value, for key: StoreKey) -> Value? {
        let old = remove(key)
        linkAsMostRecent(key, value)
        return old
    }

    /// Removes `key`; returns its value.
    @discardableResult
    mutating func remove(_ key: StoreKey) -> Value? {
        guard let value = nodes[key]?.value else { return nil }
        unlink(key)
        return value
    }

    /// Removes the least recent entry and returns it.
    mutating func removeLeastRecent() -> (key: StoreKey, value: Value)? {
        guard let key = leastRecent, let value = remove(key) else { return nil }
        return (key, value)
    }

    /// Keys from the most recent to the least recent.
    var keysByRecency: [StoreKey] {
        var keys: [StoreKey] = []
        var cursor = mostRecent
        while let key = cursor {
            keys.append(key)
            cursor = nodes[key]?.older
        }
        return keys
    }

    mutating func removeAll() {
        nodes = [:]
        mostRecent = nil
        leastRecent = nil
    }

    // MARK: - Links

    private mutating func linkAsMostRecent(_ key: StoreKey, _ value: Value) {
        nodes[key] = Node(value: value, newer: nil, older: mostRecent)
        if let previous = mostRecent { nodes[previous]?.newer = key }
        mostRecent = key
        if leastRecent == nil { leastRecent = key }
    }

    private mutating func unlink(_ key: StoreKey) {
        guard let node = nodes.removeValue(forKey: key) else { return }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { mostRecent = node.older }
        if let older = node.older { nodes[older]?.newer = node.newer } else { leastRecent = node.newer }
    }
}
