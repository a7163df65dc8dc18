/// Parses a SIZE option value (`--capacity`): a number of bytes, optionally with a unit.
///
/// ```
/// size   = number [unit]
/// number = digits ["." digits]
/// unit   = "B" | "K" | "KB" | "KiB" | "M" | "MB" | "MiB" | "G" | "GB" | "GiB" | "T" | "TB" | "TiB"
/// ```
///
/// Units are powers of 1024 however they are spelled: `K`, `KB` and `KiB` all mean 1024 bytes,
/// as in most cache and memory settings (decimal kilobytes would make `1G` of capacity 7% smaller
/// than `1 GiB` of blobs). Letters are matched without regard to ASCII case (`500m`, `2gb`). A
/// fractional size is rounded down to whole bytes (`1.1K` is 1126); without a unit it must be
/// whole. Total: any string either parses or throws.
public enum SizeParser {
    /// The accepted forms, for an error message: completes "Use …".
    public static let forms =
        "a number of bytes, optionally with a unit K, M, G or T (powers of 1024; also written KB "
        + "or KiB), e.g. 1048576, 500M or 1.5G"

    /// The multiplier of each unit, lowercased.
    private static let units: [String: UInt64] = [
        "": 1, "b": 1,
        "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
        "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
        "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
        "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
    ]

    /// Parses `text`.
    ///
    /// - Parameter text: The value as typed, e.g. `500M`.
    /// - Returns: The size in bytes.
    /// - Throws: ``QuantityError`` when `text` is empty, negative, not a number, has an unknown
    ///   unit, is a fraction of a byte, or exceeds `UInt64.max` bytes.
    public static func parse(_ text: String) throws(QuantityError) -> UInt64 {
        let (number, unit) = try DecimalNumber.split(text)
        guard let multiplier = units[asciiLowercased(unit)] else { throw .unknownUnit(String(unit)) }
        if multiplier == 1, number.hasFraction { throw .notWhole }
        guard let bytes = number.scaled(by: multiplier) else {
            throw .tooLarge(maximum: "16 EiB (\(UInt64.max) bytes)")
        }
        return bytes
    }

    /// `text` with ASCII capitals lowered and every other character kept, so that no non-ASCII
    /// letter (the Kelvin sign lowercases to `k`) can spell a unit.
    private static func asciiLowercased(_ text: Substring) -> String {
        String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
