// libFuzzer harness for the SIZE and DURATION parsers (SizeParser, DurationParser), the count and
// fraction readers of ArgumentParser, and QuantityFormat. Build and run with
// `Fuzz/run.sh Quantity 60`; Fuzz/README.md lists the properties.
//
// The input is one option value, decoded as UTF-8 (invalid bytes replaced, as on a command
// line). Its first bytes also give a number of bytes and of nanoseconds for the round trips.

import BlobStore

@testable import BlobStoreCLI
@testable import BlobStoreCLIFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)

    // (a) Each parser is total and reads the text as the reference does: the same value, or the
    //     same error with the same text.
    let size = outcome({ () throws(QuantityError) in try SizeParser.parse(text) }, { $0 })
    let duration = outcome({ () throws(QuantityError) in try DurationParser.parse(text) }, nanosecondsOf)
    let count = outcome({ () throws(QuantityError) in try ValueParser<Int>.wholeNumber(text) }, { UInt64($0) })
    let expected = (referenceSize(text), referenceDuration(text), referenceCount(text))
    check(size == expected.0, "SizeParser reads \(quoted(text)) as \(size), the reference as \(expected.0)")
    check(duration == expected.1, "DurationParser reads \(quoted(text)) as \(duration), the reference as \(expected.1)")
    check(count == expected.2, "count reads \(quoted(text)) as \(count), the reference as \(expected.2)")
    checkFraction(text)
    // (b) Nothing negative is accepted.
    if text.hasPrefix("-") {
        check(size.value == nil && duration.value == nil && count.value == nil, "\(quoted(text)) accepted")
    }

    // (c) Every unit and spelling of the same number agrees with the others.
    if case .number(_, let fraction, let number, _) = ReferenceScan(text) {
        checkUnits(number, wholeNumber: !fraction.contains { $0 != 0 })
    }

    // (d) Round trips of amounts taken from the input, and of what the input parsed to.
    var amount: UInt64 = 0
    for (index, byte) in bytes.prefix(8).enumerated() { amount |= UInt64(byte) << UInt64(8 * index) }
    let shift = bytes.count > 8 ? UInt64(bytes[8] % 64) : 0
    for value in Set([amount, amount >> shift, size.value].compactMap { $0 }) {
        checkSizeRoundTrips(value)
        checkCountRoundTrip(value)
    }
    let positive = amount & UInt64(Int64.max)
    for nanoseconds in Set([positive, positive >> shift, duration.value].compactMap { $0 }) {
        checkDurationRoundTrips(Int64(nanoseconds))
    }
    checkSecondsFormat(Double(bitPattern: amount))
    return 0
}

// MARK: - Fractions and units

/// `--low-water`'s reader: a plain decimal number, read as the nearest Double; never negative,
/// never NaN.
private func checkFraction(_ text: String) {
    let result = outcome(
        { () throws(QuantityError) in try ValueParser<Double>.decimalFraction(text) }, { $0.bitPattern })
    guard case .number(_, _, let number, let unit) = ReferenceScan(text), unit.isEmpty else {
        check(result.value == nil, "fraction accepts \(quoted(text))")
        return
    }
    guard let bits = result.value else { fail("fraction rejects \(quoted(text)): \(result)") }
    let value = Double(bitPattern: bits)
    check(value >= 0 && value == (Double(number) ?? .infinity), "fraction reads \(quoted(text)) as \(value)")
}

/// For `number` with every unit: spellings of one unit agree; a unit `ratio` times larger reads
/// `ratio` times as much, to within the rounding down (r·small ≤ big < r·small + r); what fits
/// in a larger unit fits in a smaller one; and what is too large in a smaller one is too large in
/// a larger one.
private func checkUnits(_ number: String, wholeNumber: Bool) {
    func size(_ unit: String) -> QuantityOutcome {
        outcome({ () throws(QuantityError) in try SizeParser.parse(number + unit) }, { $0 })
    }
    func duration(_ unit: String) -> QuantityOutcome {
        outcome({ () throws(QuantityError) in try DurationParser.parse(number + unit) }, nanosecondsOf)
    }
    func agree(_ spellings: [String], _ read: (String) -> QuantityOutcome) -> QuantityOutcome {
        let first = read(spellings[0])
        for spelling in spellings.dropFirst() {
            let other = read(spelling)
            check(
                other == first,
                "\(quoted(number + spellings[0])) reads as \(first), \(quoted(number + spelling)) as \(other)")
        }
        return first
    }

    var sizes: [(unit: String, outcome: QuantityOutcome)] = []
    if wholeNumber { sizes.append(("B", agree(["", "B", "b"], size))) }
    for letter in ["K", "M", "G", "T"] {
        let lower = letter.lowercased()
        let spellings = [
            letter, letter + "B", letter + "iB", lower, lower + "b", lower + "ib", letter + "IB", lower + "iB",
        ]
        sizes.append((letter, agree(spellings, size)))
    }
    checkScaling(number, sizes, ratios: Array(repeating: 1024, count: sizes.count - 1))

    let durations: [(unit: String, outcome: QuantityOutcome)] = [
        ("ms", duration("ms")), ("s", agree(["s", ""], duration)), ("m", duration("m")), ("h", duration("h")),
        ("d", duration("d")), ("w", duration("w")),
    ]
    checkScaling(number, durations, ratios: [1000, 60, 60, 24, 7])
}

private func checkScaling(_ number: String, _ outcomes: [(unit: String, outcome: QuantityOutcome)], ratios: [UInt64]) {
    for (index, ratio) in ratios.enumerated() {
        let (smallUnit, small) = outcomes[index]
        let (bigUnit, big) = outcomes[index + 1]
        let what = "\(quoted(number)) in \(smallUnit) reads as \(small), in \(bigUnit) as \(big)"
        if let big = big.value {
            guard let small = small.value else { fail("\(what): fits in the larger unit only") }
            let (scaled, overflow) = small.multipliedReportingOverflow(by: ratio)
            check(!overflow && scaled <= big && big - scaled < ratio, what)
        }
        if small.isTooLarge { check(big.isTooLarge, what) }
    }
}

// MARK: - Round trips

/// `bytes` written in each unit reads back exactly; QuantityFormat.bytes shows it to within its
/// rounding, in a form the parser reads as the amount shown.
private func checkSizeRoundTrips(_ bytes: UInt64) {
    func parse(_ text: String) -> QuantityOutcome {
        outcome({ () throws(QuantityError) in try SizeParser.parse(text) }, { $0 })
    }
    for text in ["\(bytes)", "\(bytes)B", "\(bytes)b"] {
        check(parse(text) == .value(bytes), "\(quoted(text)) reads as \(parse(text)), not \(bytes)")
    }
    for (shift, unit) in [(10, "K"), (20, "MiB"), (30, "gb"), (40, "T")] as [(UInt64, String)] {
        let text = exactText(bytes, perUnit: 1 << shift, unit: unit)
        check(parse(text) == .value(bytes), "\(quoted(text)) reads as \(parse(text)), not \(bytes)")
    }

    // QuantityFormat.bytes: "<number> <unit>", the number at least 1 and below 1024, one decimal
    // below 10 and none from 10, within half its last digit of `bytes` (plus Double's rounding).
    let shown = QuantityFormat.bytes(bytes)
    let parts = shown.split(separator: " ", omittingEmptySubsequences: false)
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    guard parts.count == 2, let power = units.firstIndex(of: String(parts[1])) else {
        fail("QuantityFormat.bytes(\(bytes)) is \(quoted(shown))")
    }
    if bytes < 1024 { check(shown == "\(bytes) B", "QuantityFormat.bytes(\(bytes)) is \(quoted(shown))") }
    let unitSize = UInt128(1) << (10 * power)
    let number = parts[0]
    let tenths: UInt128  // the number shown, in tenths
    if let point = number.firstIndex(of: ".") {
        let whole = number[..<point], decimal = number[number.index(after: point)...]
        guard whole.count == 1, decimal.count == 1, let w = UInt128(whole), let d = UInt128(decimal), w >= 1 else {
            fail("QuantityFormat.bytes(\(bytes)) is \(quoted(shown))")
        }
        tenths = 10 * w + d
    } else {
        guard let whole = UInt128(number), whole >= 10 || power == 0, whole < 1024 else {
            fail("QuantityFormat.bytes(\(bytes)) is \(quoted(shown))")
        }
        tenths = 10 * whole
    }
    let exact = UInt128(bytes) * 10
    let shownTimesTen = tenths * unitSize
    let error = exact > shownTimesTen ? exact - shownTimesTen : shownTimesTen - exact
    let halfDigit = (number.contains(".") ? 1 : 10) * unitSize / 2
    check(error <= halfDigit + (exact >> 48) + 10, "QuantityFormat.bytes(\(bytes)) is \(quoted(shown))")
    if power <= 4 {
        let text = String(number + parts[1])
        let expectedValue = UInt64(shownTimesTen / 10)
        check(parse(text) == .value(expectedValue), "\(quoted(text)) reads as \(parse(text)), not \(expectedValue)")
    }
}

private func checkCountRoundTrip(_ count: UInt64) {
    guard count <= UInt64(Int.max) else { return }
    let text = "\(count)"
    check((try? ValueParser<Int>.wholeNumber(text)) == Int(count), "count reads \(quoted(text)) as something else")
}

/// `nanoseconds` written in each unit, and by QuantityFormat.exactSeconds, reads back exactly;
/// QuantityFormat.duration shows at most two parts that read back to at most the duration and
/// less than one unit of its precision below it.
private func checkDurationRoundTrips(_ nanoseconds: Int64) {
    func parse(_ text: String) -> QuantityOutcome {
        outcome({ () throws(QuantityError) in try DurationParser.parse(text) }, nanosecondsOf)
    }
    let amount = UInt64(nanoseconds)
    let duration = Duration.nanoseconds(nanoseconds)
    var texts = [QuantityFormat.exactSeconds(duration)]
    for (perUnit, unit) in [
        (1_000_000, "ms"), (1_000_000_000, ""), (1_000_000_000, "s"), (60_000_000_000, "m"),
        (3_600_000_000_000, "h"), (86_400_000_000_000, "d"), (604_800_000_000_000, "w"),
    ] as [(UInt64, String)] {
        texts.append(exactText(amount, perUnit: perUnit, unit: unit))
    }
    for text in texts {
        check(parse(text) == .value(amount), "\(quoted(text)) reads as \(parse(text)), not \(nanoseconds)ns")
    }

    let shown = QuantityFormat.duration(duration)
    let parts = shown.split(separator: " ", omittingEmptySubsequences: false)
    check(parts.count == 1 || parts.count == 2, "QuantityFormat.duration(\(duration)) is \(quoted(shown))")
    var total: UInt64 = 0
    for part in parts {
        guard let value = parse(String(part)).value else {
            fail("QuantityFormat.duration(\(duration)) is \(quoted(shown)): \(quoted(String(part))) does not parse")
        }
        total += value
    }
    let precision: UInt64 =
        switch (amount, parts[0].last) {
        case (..<1_000_000_000, _): 1_000_000
        case (..<10_000_000_000, _): 100_000_000
        case (..<60_000_000_000, _): 1_000_000_000
        case (_, "d"): 3_600_000_000_000
        case (_, "h"): 60_000_000_000
        default: 1_000_000_000
        }
    check(
        total <= amount && amount - total < precision,
        "QuantityFormat.duration(\(duration)) is \(quoted(shown)), which reads as \(total)ns")
    check(QuantityFormat.duration(.nanoseconds(-1 - nanoseconds)) == "0ms", "a negative duration shows")
    check(QuantityFormat.exactSeconds(.nanoseconds(-1 - nanoseconds)) == "0", "a negative duration shows")
    let seconds = duration.seconds
    let difference = abs(seconds - Double(nanoseconds) / 1e9)
    check(difference <= 1e-9 + seconds * 1e-15, "Duration.seconds of \(duration) is \(seconds)")
}

/// Any Double, NaN and infinities included, shows as some duration.
private func checkSecondsFormat(_ seconds: Double) {
    check(!QuantityFormat.duration(seconds: seconds).isEmpty, "QuantityFormat.duration(seconds: \(seconds)) is empty")
}
