import BlobStore
import Testing

/// The clock for deadlines (`MonotonicInstant`): arithmetic with `Duration`, saturated.
@Suite("Monotonic instants")
struct MonotonicInstantTests {
    private let start = MonotonicInstant(nanoseconds: 5_000_000_000)

    @Test("A duration moves an instant by its nanoseconds, either way; the difference is the duration")
    func arithmetic() {
        let later = start + .milliseconds(1500)
        #expect(later.nanoseconds == 6_500_000_000)
        #expect(later - start == .milliseconds(1500))
        #expect(start - later == .milliseconds(-1500))
        #expect(start + .nanoseconds(-2) == MonotonicInstant(nanoseconds: 4_999_999_998))
        #expect(start + .zero == start)
        #expect(start < later && !(later < start))
    }

    @Test("Durations past the clock's ends saturate instead of trapping")
    func saturation() {
        // Int64.max nanoseconds, some 292 years: a deadline that does not pass.
        #expect((start + .seconds(Int64.max)).nanoseconds == 5_000_000_000 + UInt64(Int64.max))
        #expect((start + .seconds(Int64.min)).nanoseconds == 0)
        #expect((start + .seconds(-6)).nanoseconds == 0)
        let end = MonotonicInstant(nanoseconds: .max)
        #expect(end + .seconds(1) == end)
        #expect(end - MonotonicInstant(nanoseconds: 0) == .nanoseconds(Int64.max))
    }

    @Test("A duration converted once to nanoseconds moves an instant by them, saturated at the clock's ends")
    func advancedByNanoseconds() {
        #expect(MonotonicInstant.nanoseconds(in: .milliseconds(1500)) == 1_500_000_000)
        #expect(MonotonicInstant.nanoseconds(in: .nanoseconds(-2)) == -2)
        #expect(MonotonicInstant.nanoseconds(in: .seconds(Int64.max)) == .max)
        #expect(MonotonicInstant.nanoseconds(in: .seconds(Int64.min)) == .min)
        #expect(start.advanced(byNanoseconds: 1_500_000_000).nanoseconds == 6_500_000_000)
        #expect(start.advanced(byNanoseconds: -2).nanoseconds == 4_999_999_998)
        #expect(start.advanced(byNanoseconds: 0) == start)
        #expect(start.advanced(byNanoseconds: .max).nanoseconds == 5_000_000_000 + UInt64(Int64.max))
        #expect(start.advanced(byNanoseconds: -6_000_000_000).nanoseconds == 0)
        #expect(start.advanced(byNanoseconds: .min).nanoseconds == 0)
        #expect(MonotonicInstant(nanoseconds: .max).advanced(byNanoseconds: 1).nanoseconds == .max)
    }

    @Test("Now does not go backwards")
    func nowIsMonotonic() {
        var last = MonotonicInstant.now
        for _ in 0..<1000 {
            let next = MonotonicInstant.now
            #expect(!(next < last))
            last = next
        }
    }
}
