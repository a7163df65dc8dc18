/// Which master serves each of a Redis Cluster's 16384 hash slots, and the replicas of each
/// master, as `CLUSTER SHARDS` or `CLUSTER SLOTS` report them (ClusterTopology+Parsing.swift).
///
/// A client keeps one and routes each key to the master of its slot; a `-MOVED` redirection
/// changes one slot (``assign(_:to:)``) until the next refresh replaces the whole map.
struct ClusterTopology: Sendable, Equatable {
    /// The masters, each once, in the order the reply first names them.
    private(set) var masters: [ClusterNode] = []
    /// The replicas of each master, by its index in ``masters``.
    private(set) var replicas: [[ClusterNode]] = []
    /// For each slot, the index in ``masters`` of its master, or ``unserved``.
    private var owners = [UInt16](repeating: unserved, count: HashSlot.count)
    /// The index of each master in ``masters``.
    private var indexes: [ClusterNode: Int] = [:]

    private static let unserved = UInt16.max
    /// The most replicas kept per master (they are only asked for the topology); more are ignored.
    static let maximumReplicas = 16

    /// A problem with a topology reply: the reply is refused whole.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    init() {}

    /// The master that serves `slot`, or `nil` when none does.
    func master(forSlot slot: Int) -> ClusterNode? {
        let owner = owners[slot]
        return owner == Self.unserved ? nil : masters[Int(owner)]
    }

    /// How many slots have a master.
    var servedSlots: Int { owners.lazy.filter { $0 != Self.unserved }.count }

    /// Every node, masters first, each once.
    var nodes: [ClusterNode] {
        var seen = Set<ClusterNode>()
        return (masters + replicas.joined()).filter { seen.insert($0).inserted }
    }

    /// The slot ranges each master serves, by its index in ``masters``, in slot order.
    var ranges: [[ClosedRange<Int>]] {
        var ranges = [[ClosedRange<Int>]](repeating: [], count: masters.count)
        var slot = 0
        while slot < HashSlot.count {
            let owner = owners[slot]
            var end = slot
            while end + 1 < HashSlot.count, owners[end + 1] == owner { end += 1 }
            if owner != Self.unserved { ranges[Int(owner)].append(slot...end) }
            slot = end + 1
        }
        return ranges
    }

    /// Makes `node` the master of `slot` (a `-MOVED` redirection). A new node past the 16384th
    /// master is not added (no cluster has more): the next refresh replaces the map.
    mutating func assign(_ slot: Int, to node: ClusterNode) {
        guard indexes[node] != nil || masters.count < HashSlot.count else { return }
        owners[slot] = UInt16(index(of: node))
    }

    /// Records that `master` serves `range`, with `replicas`.
    ///
    /// - Throws: ``Malformed`` for a range outside `0...16383`, or one with a slot the reply
    ///   listed already.
    mutating func add(_ range: ClosedRange<Int>, master: ClusterNode, replicas: [ClusterNode]) throws {
        guard range.lowerBound >= 0, range.upperBound < HashSlot.count else {
            throw Malformed(description: "a slot range \(range) outside 0...\(HashSlot.count - 1)")
        }
        let owner = index(of: master)
        for replica in replicas where self.replicas[owner].count < Self.maximumReplicas {
            if replica != master, !self.replicas[owner].contains(replica) { self.replicas[owner].append(replica) }
        }
        // A slot named twice is refused, even for the same master: no reply does that, and so
        // a reply costs at most 16384 slot assignments, however many ranges it lists.
        for slot in range {
            guard owners[slot] == Self.unserved else { throw Malformed(description: "slot \(slot) listed twice") }
            owners[slot] = UInt16(owner)
        }
    }

    /// The index of `node` in ``masters``, adding it when it is not there.
    private mutating func index(of node: ClusterNode) -> Int {
        if let index = indexes[node] { return index }
        indexes[node] = masters.count
        masters.append(node)
        replicas.append([])
        return masters.count - 1
    }
}
