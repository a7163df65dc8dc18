import Testing

@testable import BlobStoreCLI

/// SIZE and DURATION option values, and how sizes and durations are shown.
@Suite struct QuantityTests {
    // MARK: - SIZE

    @Test(
        arguments: [
            ("0", 0),
            ("1048576", 1_048_576),
            ("000001K", 1024),
            ("7B", 7),
            ("10K", 10_240),
            ("500M", 500 << 20),
            ("2G", 2 << 30),
            ("1T", 1 << 40),
            ("500MB", 500 << 20),
            ("500MiB", 500 << 20),
            ("500mib", 500 << 20),
            ("500m", 500 << 20),
            ("2gb", 2 << 30),
            ("3tB", 3 << 40),
            ("1.5G", 1_610_612_736),
            ("0.5K", 512),
            ("1.1K", 1126),  // 1126.4, rounded down
            ("1.0", 1),
            ("1.000B", 1),
            ("18446744073709551615", UInt64.max),
            // 16777215.9999999999999999 T is 2^64 - 2^40 + ⌊0.9999999999999999 × 2^40⌋ = 2^64 - 1.
            ("16777215.9999999999999999T", UInt64.max),
            ("1." + String(repeating: "9", count: 200) + "K", 2047),
        ] as [(String, UInt64)])
    func sizesThatParse(text: String, bytes: UInt64) throws {
        #expect(try SizeParser.parse(text) == bytes)
    }

    @Test(
        arguments: [
            ("", .empty),
            ("-5M", .negative),
            ("-1", .negative),
            ("-", .notANumber),
            ("--5", .notANumber),
            ("abc", .notANumber),
            ("M", .notANumber),
            (".5G", .notANumber),
            ("1.G", .notANumber),
            ("+5", .notANumber),
            (" 5M", .notANumber),
            ("١٢", .notANumber),  // Arabic-Indic digits are not ASCII digits
            ("5M ", .unknownUnit("M ")),
            ("5 M", .unknownUnit(" M")),
            ("5MM", .unknownUnit("MM")),
            ("5Mi", .unknownUnit("Mi")),
            ("5P", .unknownUnit("P")),
            ("1e6", .unknownUnit("e6")),
            ("1,000", .unknownUnit(",000")),
            ("1.5.5", .unknownUnit(".5")),
            ("5\u{212A}", .unknownUnit("\u{212A}")),  // the Kelvin sign lowercases to "k"
            ("1.5", .notWhole),
            ("1.5B", .notWhole),
            ("18446744073709551616", .tooLarge(maximum: "16 EiB (18446744073709551615 bytes)")),
            ("16777216T", .tooLarge(maximum: "16 EiB (18446744073709551615 bytes)")),
            ("99999999999999999999999999999K", .tooLarge(maximum: "16 EiB (18446744073709551615 bytes)")),
        ] as [(String, QuantityError)])
    func sizesThatAreRejected(text: String, expected: QuantityError) {
        #expect(throws: expected) { try SizeParser.parse(text) }
    }

    // MARK: - DURATION

    @Test(
        arguments: [
            ("30s", .seconds(30)),
            ("15m", .seconds(900)),
            ("2h", .seconds(7200)),
            ("7d", .seconds(604_800)),
            ("1w", .seconds(604_800)),
            ("500ms", .milliseconds(500)),
            ("45", .seconds(45)),
            ("0", .zero),
            ("0ms", .zero),
            ("1.5h", .seconds(5400)),
            ("0.25", .milliseconds(250)),
            ("0.0000000019s", .nanoseconds(1)),  // finer than a nanosecond is rounded down
            ("106751d", .seconds(106_751 * 86_400)),
            ("9223372036.854775807", .nanoseconds(Int64.max)),
        ] as [(String, Duration)])
    func durationsThatParse(text: String, duration: Duration) throws {
        #expect(try DurationParser.parse(text) == duration)
    }

    @Test(
        arguments: [
            ("", .empty),
            ("-5s", .negative),
            ("-0", .negative),
            ("s", .notANumber),
            ("1.s", .notANumber),
            ("inf", .notANumber),
            ("nan", .notANumber),
            ("5S", .unknownUnit("S")),
            ("5M", .unknownUnit("M")),
            ("5 s", .unknownUnit(" s")),
            ("5sec", .unknownUnit("sec")),
            ("5y", .unknownUnit("y")),
            ("1h30m", .unknownUnit("h30m")),
            ("106752d", .tooLarge(maximum: "106751 days")),
            ("9223372036.854775808", .tooLarge(maximum: "106751 days")),
            ("99999999999999999999999w", .tooLarge(maximum: "106751 days")),
        ] as [(String, QuantityError)])
    func durationsThatAreRejected(text: String, expected: QuantityError) {
        #expect(throws: expected) { try DurationParser.parse(text) }
    }

    /// The parsers are fuzzed later: every string must parse or throw, never trap. Strings
    /// built from the characters that matter (digits, points, signs, unit letters, spaces, look-
    /// alike letters and digits), and every prefix of long digit runs.
    @Test func parsersAreTotal() {
        let alphabet = Array("0123456789..--+ kKmMgGtTbBiIsShdwe\u{212A}١\u{301}\n")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var parsed = 0
        for _ in 0..<20_000 {
            let text = String((0..<(next() % 24)).map { _ in alphabet[next() % alphabet.count] })
            if (try? SizeParser.parse(text)) != nil { parsed += 1 }
            if (try? DurationParser.parse(text)) != nil { parsed += 1 }
            _ = try? ValueParser<Int>.wholeNumber(text)
            _ = try? ValueParser<Double>.decimalFraction(text)
        }
        #expect(parsed > 0)
        let digits = String(repeating: "9", count: 60)
        for length in 0...digits.count {
            for unit in ["", "T", "w", "ms"] {
                _ = try? SizeParser.parse(String(digits.prefix(length)) + unit)
                _ = try? DurationParser.parse("1." + String(digits.prefix(length)) + unit)
            }
        }
    }

    // MARK: - Showing sizes and durations

    @Test(
        arguments: [
            (0, "0 B"),
            (1023, "1023 B"),
            (1024, "1.0 KiB"),
            (1536, "1.5 KiB"),
            (10_188, "9.9 KiB"),  // 9.949 KiB
            (10_189, "10 KiB"),  // 9.950 KiB
            (10 * 1024, "10 KiB"),
            (1_048_575, "1.0 MiB"),  // 1023.999 KiB would round to "1024 KiB"
            (310 << 20, "310 MiB"),
            (1_288_490_189, "1.2 GiB"),
            (4 << 30, "4.0 GiB"),
            (UInt64.max, "16 EiB"),
        ] as [(UInt64, String)])
    func bytesForPeople(bytes: UInt64, text: String) {
        #expect(QuantityFormat.bytes(bytes) == text)
    }

    @Test(
        arguments: [
            (.zero, "0ms"),
            (.milliseconds(350), "350ms"),
            (.milliseconds(1234), "1.2s"),
            (.milliseconds(9999), "9.9s"),
            (.seconds(12), "12s"),
            (.seconds(60), "1m"),
            (.seconds(303), "5m 3s"),
            (.seconds(3600), "1h"),
            (.seconds(5400), "1h 30m"),
            (.seconds(90_061), "1d 1h"),
            (.seconds(604_800), "7d"),
            (.seconds(-5), "0ms"),
            (.nanoseconds(Int64.max), "106751d 23h"),
        ] as [(Duration, String)])
    func durationsForPeople(duration: Duration, text: String) {
        #expect(QuantityFormat.duration(duration) == text)
    }

    @Test func durationsGivenInSeconds() {
        #expect(QuantityFormat.duration(seconds: 0.35) == "350ms")
        #expect(QuantityFormat.duration(seconds: 12.7) == "12s")
        #expect(QuantityFormat.duration(seconds: .nan) == "0ms")
        #expect(QuantityFormat.duration(seconds: -1) == "0ms")
        #expect(QuantityFormat.duration(seconds: .infinity) == "0ms")
        #expect(QuantityFormat.duration(seconds: 1e300) == QuantityFormat.duration(.seconds(Int64(9e18))))
    }

    @Test func exactSeconds() {
        #expect(QuantityFormat.exactSeconds(.seconds(604_800)) == "604800")
        #expect(QuantityFormat.exactSeconds(.milliseconds(250)) == "0.25")
        #expect(QuantityFormat.exactSeconds(.nanoseconds(1_000_000_001)) == "1.000000001")
        #expect(QuantityFormat.exactSeconds(.seconds(-1)) == "0")
        #expect(Duration.milliseconds(1500).seconds == 1.5)
    }
}
