import Testing

@_spi(BlobStorePackage) @testable import BlobStore

/// The memo of computed values keeps two generations: what was used since the last turn
/// survives it, and no more than twice its capacity is kept.
@Suite("Bounded memo")
struct BoundedMemoTests {
    @Test("A value used in the older generation survives the turn; one unused for two turns is computed again")
    func twoGenerations() {
        let memo = BoundedMemo<Int, Int>(capacity: 2)
        var computed: [Int] = []
        func value(_ key: Int) -> Int? {
            memo.value(for: key) { key in
                computed.append(key)
                return key * 10
            }
        }
        #expect(value(1) == 10)
        #expect(value(2) == 20)
        #expect(value(3) == 30)  // 1 and 2 become the older generation
        #expect(value(1) == 10)  // found there, kept in the newer: [3, 1]
        #expect(value(4) == 40)  // turn: older [3, 1], newer [4]; 2 is dropped
        #expect(value(1) == 10)
        #expect(value(3) == 30)
        #expect(value(2) == 20)
        #expect(computed == [1, 2, 3, 4, 2])
        memo.remember(7, for: 5)
        #expect(value(5) == 7)
        #expect(computed == [1, 2, 3, 4, 2])
    }
}
