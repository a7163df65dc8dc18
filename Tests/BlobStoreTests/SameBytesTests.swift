import Foundation
import Testing

@testable import BlobStore

/// `Data.hasSameBytes(as:)`: the same answer as `==` for every kind of `Data` storage.
@Suite struct SameBytesTests {
    @Test func agreesWithEqualityOnEveryStorage() {
        let long = Data((0..<700).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var changedLast = long
        changedLast[699] ^= 1
        let values: [Data] = [
            Data(), Data([1]), Data([1, 2, 3]), long, changedLast, long.dropFirst(), long.dropLast(),
            long[100..<200], Data(long[100..<200]), Data(repeating: 0, count: 14), Data(repeating: 0, count: 15),
        ]
        for left in values {
            for right in values {
                #expect(left.hasSameBytes(as: right) == (left == right), "\(left.count) \(right.count)")
            }
        }
        #expect(long.hasSameBytes(as: Data(long)))
        #expect(!long.hasSameBytes(as: changedLast))
    }
}
