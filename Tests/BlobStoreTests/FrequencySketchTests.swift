import BlobStore
import Testing

@testable import BlobStoreCache

@Suite("Frequency sketch")
struct FrequencySketchTests {
    @Test("Counts requests per key up to 15, and keys of other hashes apart")
    func countsUpToFifteen() {
        var sketch = FrequencySketch(expectedKeys: 1000)
        let keys = (0..<200).map { FrequencySketch.hash(StoreKey("key-\($0)")) }
        for (index, key) in keys.enumerated() {
            for _ in 0..<(index % 20) { sketch.increment(key) }
        }
        var exact = 0
        for (index, key) in keys.enumerated() {
            let frequency = sketch.frequency(key)
            #expect(frequency >= min(index % 20, 15), "never below the count (up to 15)")
            if frequency == min(index % 20, 15) { exact += 1 }
        }
        // 200 keys in rows of 1,024 counters: a key's four counters all shared with others is rare.
        #expect(exact >= 190, "\(exact) of 200 exact")
    }

    @Test("Keys that differ in one byte anywhere hash apart")
    func hashTellsKeysApart() {
        let base = Array("http:http://example.com/a/b/c/img-0001.png?v=1".utf8)
        var hashes: Set<UInt64> = [FrequencySketch.hash(StoreKey(bytes: base))]
        for offset in base.indices {
            var changed = base
            changed[offset] ^= 1
            hashes.insert(FrequencySketch.hash(StoreKey(bytes: changed)))
        }
        hashes.insert(FrequencySketch.hash(StoreKey(bytes: base + [0])))
        #expect(hashes.count == base.count + 2)
    }

    /// A sketch of rows of 64 counters, the key `hot` requested `count` times, and its hash.
    private func sketch(withHotRequested count: Int) -> (sketch: FrequencySketch, hot: UInt64) {
        var sketch = FrequencySketch(expectedKeys: 64)
        let hot = FrequencySketch.hash("hot")
        for _ in 0..<count { sketch.increment(hot) }
        return (sketch, hot)
    }

    @Test("Every counter halves once ten requests per counter of a row were counted")
    func countersHalve() {
        var (sketch, hot) = sketch(withHotRequested: 12)
        #expect(sketch.frequency(hot) == 12)
        // A row of 64 counters halves at 640 requests: 628 more of other keys.
        for index in 0..<627 { sketch.increment(FrequencySketch.hash(StoreKey("other-\(index % 300)"))) }
        #expect(sketch.frequency(hot) >= 12)
        sketch.increment(FrequencySketch.hash("other-last"))
        #expect(sketch.frequency(hot) <= 7, "halved: from at least 12 (more with collisions) to at most 7")
        #expect(sketch.frequency(hot) >= 6)
        #expect(sketch.counted == 0, "counting starts again")
    }

    @Test("Requests that raise no counter are not counted; every 640 that do, for a row of 64, halve them")
    func halvingCountsRaisingRequests() {
        var (sketch, hot) = sketch(withHotRequested: 20)
        #expect(sketch.frequency(hot) == 15)
        #expect(sketch.counted == 15, "the five requests at 15 raised nothing")
        for round in 0..<2 {
            var index = 0
            while sketch.counted > 0 || index == 0 {
                sketch.increment(FrequencySketch.hash(StoreKey("r\(round)-\(index)")))
                index += 1
                #expect(index < 5000, "halved in time")
                if index >= 5000 { return }
            }
            #expect(sketch.frequency(hot) <= 7, "round \(round): halved")
            for _ in 0..<20 { sketch.increment(hot) }
        }
    }
}
