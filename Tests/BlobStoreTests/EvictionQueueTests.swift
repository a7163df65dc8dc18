import Testing

@testable import BlobStore

/// The eviction policies' decisions on small traces worked out by hand (docs/design.md,
/// "Eviction policies"). `scripts/hit-ratio-oracle.py` compares them with libCacheSim's on
/// large ones.
@Suite struct EvictionQueueTests {
    /// Runs `requests` (key, size) through `queue` with `capacity`; returns the hits and the keys
    /// evicted, in order.
    private func run<Queue: EvictionQueue<String>>(
        _ queue: inout Queue, _ requests: [String], size: UInt64 = 1, capacity: UInt64
    ) -> (hits: Int, evicted: [String]) {
        var hits = 0
        var evicted: [String] = []
        for key in requests
        where queue.request(key, size: size, capacity: capacity, evicted: { key, _ in evicted.append(key) }) {
            hits += 1
        }
        return (hits, evicted)
    }

    @Test func lruEvictsTheLeastRecentlyUsed() {
        var queue = LRUQueue<String>()
        let result = run(&queue, ["a", "b", "c", "a", "d", "e"], capacity: 3)
        #expect(result.hits == 1)
        #expect(result.evicted == ["b", "c"])
        #expect(queue.keysInEvictionOrder == ["a", "d", "e"])
    }

    @Test func sieveKeepsVisitedEntriesInPlaceAndMovesItsHand() {
        var queue = SieveQueue<String>()
        // a b c d inserted (a oldest); a and c read.
        _ = run(&queue, ["a", "b", "c", "d", "a", "c"], capacity: 4)
        #expect(queue.isVisited("a") && queue.isVisited("c") && !queue.isVisited("b"))
        // e needs room: the hand clears a, evicts b and rests on c.
        var evicted: [String] = []
        _ = queue.request("e", size: 1, capacity: 4) { key, _ in evicted.append(key) }
        #expect(evicted == ["b"])
        #expect(!queue.isVisited("a") && queue.isVisited("c"))
        // f: the hand clears c, evicts d and rests on e; g: e goes.
        _ = queue.request("f", size: 1, capacity: 4) { key, _ in evicted.append(key) }
        _ = queue.request("g", size: 1, capacity: 4) { key, _ in evicted.append(key) }
        #expect(evicted == ["b", "d", "e"])
        // Read entries kept their place: the order is still the order of insertion.
        #expect(queue.keysInInsertionOrder == ["a", "c", "f", "g"])
        // h: the hand rests on f, newer than e, and f goes, though a is older.
        _ = queue.request("h", size: 1, capacity: 4) { key, _ in evicted.append(key) }
        #expect(evicted.last == "f")
    }

    @Test func sieveEvictsTheOldestWhenEverythingWasVisited() {
        var queue = SieveQueue<String>()
        _ = run(&queue, ["a", "b", "c", "a", "b", "c"], capacity: 3)
        var evicted: [String] = []
        _ = queue.request("d", size: 1, capacity: 3) { key, _ in evicted.append(key) }
        #expect(evicted == ["a"])
    }

    @Test func s3fifoSendsOneHitWondersOutThroughTheSmallQueueAndTheGhostBack() {
        // 1,000 bytes: a small queue of 100, a main queue of 900, a ghost of 900; entries of 50.
        var queue = S3FIFOQueue<String>(capacity: 1000, ghostID: testGhostID)
        for index in 0..<20 { _ = queue.request("k\(index)", size: 50, capacity: 1000) }
        // Before the first eviction a full small queue sends new entries to the main queue.
        #expect(!queue.isInMain("k0") && !queue.isInMain("k1") && queue.isInMain("k2"))
        var evicted: [String] = []
        _ = queue.request("new", size: 50, capacity: 1000) { key, _ in evicted.append(key) }
        // The small queue's oldest, never read, leaves and is remembered.
        #expect(evicted == ["k0"])
        #expect(queue.isGhost("k0"))
        // Asked for again, it goes straight to the main queue.
        _ = queue.request("k0", size: 50, capacity: 1000)
        #expect(queue.isInMain("k0") && !queue.isGhost("k0"))
    }

    @Test func s3fifoPromotesAnEntryReadTwiceInTheSmallQueue() {
        var queue = S3FIFOQueue<String>(capacity: 1000, ghostID: testGhostID)
        for index in 0..<20 { _ = queue.request("k\(index)", size: 50, capacity: 1000) }
        _ = queue.request("k0", size: 50, capacity: 1000)
        _ = queue.request("k0", size: 50, capacity: 1000)
        var evicted: [String] = []
        _ = queue.request("new", size: 50, capacity: 1000) { key, _ in evicted.append(key) }
        #expect(queue.isInMain("k0"))
        #expect(evicted == ["k1"])
    }

    @Test func s3fifoDeclinesAnEntryAsLargeAsItsSmallQueue() {
        var queue = S3FIFOQueue<String>(capacity: 1000, ghostID: testGhostID)
        let hit = queue.request("big", size: 100, capacity: 1000)
        #expect(!hit && !queue.contains("big"))
        _ = queue.request("fits", size: 99, capacity: 1000)
        #expect(queue.contains("fits"))
    }

    /// Ten hot keys read three times, then a scan of 20 keys asked for once each, in a cache of
    /// 20 entries: LRU keeps none of the hot keys, SIEVE and S3-FIFO keep all of them.
    @Test func aScanDoesNotFlushHotKeysUnderSieveAndS3FIFO() {
        let hot = (0..<10).map { "hot\($0)" }
        let warm = hot + hot + hot
        let scan = (0..<20).map { "scan\($0)" }
        let capacity: UInt64 = 2000
        func hitsAfterTheScan<Queue: EvictionQueue<String>>(_ queue: inout Queue) -> Int {
            _ = run(&queue, warm + scan, size: 100, capacity: capacity)
            return run(&queue, hot, size: 100, capacity: capacity).hits
        }
        var lru = LRUQueue<String>()
        var sieve = SieveQueue<String>()
        var s3fifo = S3FIFOQueue<String>(capacity: capacity, ghostID: testGhostID)
        #expect(hitsAfterTheScan(&lru) == 0)
        #expect(hitsAfterTheScan(&sieve) == 10)
        #expect(hitsAfterTheScan(&s3fifo) == 10)
    }

    /// Ten hot keys read in turn between the keys of a scan asked for once each, in a cache of 15
    /// entries: 19 other keys come between two reads of a hot key, so LRU and SIEVE (a FIFO while
    /// nothing is read twice in the cache) evict each before it is read again; S3-FIFO's ghost
    /// queue remembers them and sends them to its main queue.
    @Test func s3fifoKeepsKeysThatComeBackSoonAfterTheirFirstEviction() {
        var trace: [String] = []
        for step in 0..<2000 {
            trace.append("scan\(step)")
            trace.append("hot\(step % 10)")
        }
        let capacity: UInt64 = 1500
        var lru = LRUQueue<String>()
        var sieve = SieveQueue<String>()
        var s3fifo = S3FIFOQueue<String>(capacity: capacity, ghostID: testGhostID)
        #expect(run(&lru, trace, size: 100, capacity: capacity).hits == 0)
        #expect(run(&sieve, trace, size: 100, capacity: capacity).hits == 0)
        #expect(run(&s3fifo, trace, size: 100, capacity: capacity).hits >= 1900)
    }

    /// A copy of a queue that is told each victim another copy chose (``EvictionQueue/evict(_:)``)
    /// ends up as that copy: after every step of random inserts, reads (often of everything, so
    /// that the hand goes round the whole queue) and evictions that spare the key just inserted.
    @Test(arguments: ["sieve", "s3fifo"])
    func aReplayedEvictionMovesTheQueueAsTheChoiceDid(_ policy: String) {
        var random = UInt64(7)
        func next(_ bound: UInt64) -> UInt64 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (random >> 33) % bound
        }
        var choosing = SieveQueue<String>()
        var replaying = SieveQueue<String>()
        var choosingS3 = S3FIFOQueue<String>(capacity: 2000, admitsLargeToMain: true, ghostID: testGhostID)
        var replayingS3 = S3FIFOQueue<String>(capacity: 2000, admitsLargeToMain: true, ghostID: testGhostID)
        for step in 0..<20_000 {
            let key = "k\(next(60))"
            let size = 50 + next(100)
            if policy == "sieve" {
                if choosing.contains(key) {
                    choosing.access(key)
                    replaying.access(key)
                } else {
                    choosing.insert(key, size: size)
                    replaying.insert(key, size: size)
                }
                if next(50) == 0 {
                    for held in choosing.keysInInsertionOrder { choosing.access(held); replaying.access(held) }
                }
                while choosing.bytes > 2000, let victim = choosing.evict(sparing: key) { replaying.evict(victim.key) }
                guard choosing.snapshot.entries.elementsEqual(replaying.snapshot.entries, by: { $0 == $1 }),
                    choosing.snapshot.hand == replaying.snapshot.hand
                else {
                    Issue.record("SIEVE copies differ after step \(step)")
                    return
                }
            } else {
                if choosingS3.contains(key) {
                    choosingS3.access(key)
                    replayingS3.access(key)
                } else {
                    choosingS3.noteMiss(key)
                    replayingS3.noteMiss(key)
                    choosingS3.insert(key, size: size)
                    replayingS3.insert(key, size: size)
                }
                if next(50) == 0 {
                    for held in choosingS3.snapshot.small.map(\.key) + choosingS3.snapshot.main.map(\.key) {
                        choosingS3.access(held)
                        replayingS3.access(held)
                    }
                }
                while choosingS3.bytes > 2000, let victim = choosingS3.evict(sparing: key) {
                    replayingS3.evict(victim.key)
                }
                let (a, b) = (choosingS3.snapshot, replayingS3.snapshot)
                guard a.small == b.small, a.main == b.main, a.hasEvicted == b.hasEvicted,
                    a.ghost.elementsEqual(b.ghost, by: { $0 == $1 })
                else {
                    Issue.record(
                        "S3-FIFO copies differ after step \(step): \(a.small.map(\.key)) \(a.main.map(\.key)) vs \(b.small.map(\.key)) \(b.main.map(\.key)); \(a.main.map(\.frequency)) vs \(b.main.map(\.frequency))"
                    )
                    return
                }
            }
        }
    }

    @Test func removingAnEntryKeepsTheQueuesConsistent() {
        var sieve = SieveQueue<String>()
        _ = run(&sieve, ["a", "b", "c", "a", "d"], capacity: 3)
        // The hand rests on c (b was evicted); removing c moves it on to d.
        sieve.remove("c")
        #expect(sieve.count == 2 && sieve.bytes == 2)
        var evicted: [String] = []
        _ = sieve.request("e", size: 1, capacity: 2) { key, _ in evicted.append(key) }
        #expect(evicted == ["d"])
        var s3fifo = S3FIFOQueue<String>(capacity: 1000, ghostID: testGhostID)
        for index in 0..<20 { _ = s3fifo.request("k\(index)", size: 50, capacity: 1000) }
        s3fifo.remove("k5")
        #expect(s3fifo.count == 19 && s3fifo.bytes == 950)
    }
}

/// A ghost id for the tests' string keys (the store uses the keys' FNV-1a hash).
@Sendable private func testGhostID(_ key: String) -> UInt64 { UInt64(bitPattern: Int64(key.hashValue)) }
