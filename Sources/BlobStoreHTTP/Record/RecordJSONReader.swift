import BlobStore
import Foundation

/// Reads a ``CacheRecord`` from JSON in the one form ``RecordJSON`` writes (and `JSONEncoder`
/// with sorted keys): keys in order, no whitespace, numbers as Swift describes them. Decoding a
/// record with `JSONDecoder` cost some 200k instructions, as much as a hundred memory hits; a hit
/// whose decoded record is not remembered (``DecodedRecords``: a URL seen for the first time on an
/// event loop, one read from disk, more URLs than the memo holds) paid it at every request.
///
/// Anything else — another key order, whitespace, a key it does not know, an escape it does not
/// read (a UTF-16 surrogate), a number in another form, bytes that are not UTF-8 — makes it
/// return `nil`, and ``CacheRecord/decoded(_:)`` decodes with `JSONDecoder`: what this reads is
/// what `JSONDecoder` reads from the same bytes, or nothing.
struct RecordJSONReader {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The record in `json`, or `nil` when it is not in the form read here.
    static func record(in json: Data) -> CacheRecord? {
        json.withUnsafeBytes { bytes in
            var reader = RecordJSONReader(bytes)
            guard let record = reader.record(), reader.position == bytes.count else { return nil }
            return record
        }
    }

    // MARK: - The record's parts, in the order they are written

    private mutating func record() -> CacheRecord? {
        guard take("{") else { return nil }
        var record = CacheRecord()
        var first = true
        if member("response", first: &first) {
            guard let response = response() else { return nil }
            record.response = response
        }
        if member("variants", first: &first) {
            guard let variants = strings() else { return nil }
            record.variants = variants
        }
        guard member("version", first: &first), let version = integer(), take("}") else { return nil }
        record.version = version
        return record
    }

    private mutating func response() -> StoredResponse? {
        var first = true
        guard take("{"), member("headers", first: &first), let headers = headers(),
            member("requestTime", first: &first), let requestTime = number(),
            member("responseTime", first: &first), let responseTime = number(),
            member("status", first: &first), let status = integer(),
            member("url", first: &first), let url = string()
        else { return nil }
        var vary: VaryKey?
        if member("vary", first: &first) {
            guard let elements = varyElements() else { return nil }
            vary = VaryKey(elements: elements)
        }
        guard take("}") else { return nil }
        return StoredResponse(
            exactly: url, status: status, headers: headers, vary: vary,
            requestTime: Date(timeIntervalSinceReferenceDate: requestTime),
            responseTime: Date(timeIntervalSinceReferenceDate: responseTime))
    }

    /// `{"fields":[{"name":…,"value":…},…]}`.
    private mutating func headers() -> HTTPHeaders? {
        var first = true
        guard take("{"), member("fields", first: &first), take("[") else { return nil }
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(16)
        while !take("]") {
            guard fields.isEmpty || take(",") else { return nil }
            var inner = true
            guard take("{"), member("name", first: &inner), let name = string(),
                member("value", first: &inner), let value = string(), take("}")
            else { return nil }
            fields.append(HTTPHeaders.Field(name: name, value: value))
        }
        guard take("}") else { return nil }
        return HTTPHeaders(fields)
    }

    /// `{"elements":[{"name":…[,"value":…]},…]}`.
    private mutating func varyElements() -> [VaryKey.Element]? {
        var first = true
        guard take("{"), member("elements", first: &first), take("[") else { return nil }
        var elements: [VaryKey.Element] = []
        while !take("]") {
            guard elements.isEmpty || take(",") else { return nil }
            var inner = true
            guard take("{"), member("name", first: &inner), let name = string() else { return nil }
            var value: String?
            if member("value", first: &inner) {
                guard let text = string() else { return nil }
                value = text
            }
            guard take("}") else { return nil }
            elements.append(VaryKey.Element(name: name, value: value))
        }
        guard take("}") else { return nil }
        return elements
    }

    /// `["…",…]`.
    private mutating func strings() -> [String]? {
        guard take("[") else { return nil }
        var strings: [String] = []
        while !take("]") {
            guard strings.isEmpty || take(","), let text = string() else { return nil }
            strings.append(text)
        }
        return strings
    }

    // MARK: - Tokens

    /// Takes `byte` if it is next.
    private mutating func take(_ byte: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: byte) else { return false }
        position += 1
        return true
    }

    /// Takes `,"name":` (without the comma for the first member of an object) if it is next,
    /// else takes nothing.
    private mutating func member(_ name: StaticString, first: inout Bool) -> Bool {
        let start = position
        guard first || take(","), take("\""), take(literal: name), take("\""), take(":") else {
            position = start
            return false
        }
        first = false
        return true
    }

    /// Takes the bytes of `literal` if they are next.
    private mutating func take(literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard bytes.count - position >= length,
            literal.withUTF8Buffer({
                UnsafeRawBufferPointer(rebasing: bytes[position..<(position + length)])
                    .hasSameBytes(as: UnsafeRawBufferPointer($0))
            })
        else { return false }
        position += length
        return true
    }

    /// A string: its bytes as they are up to the closing quote, the escapes `JSONEncoder` writes
    /// read (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u` of a scalar that is not a
    /// surrogate); `nil` for a raw control character or bytes that are not UTF-8.
    private mutating func string() -> String? {
        guard take("\"") else { return nil }
        let start = position
        var ascii = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                defer { position += 1 }
                return Self.text(UnsafeRawBufferPointer(rebasing: bytes[start..<position]), ascii: ascii)
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            position += 1
        }
        return nil
    }

    /// `utf8` as a string, or `nil` when it is not UTF-8. Made by `String(decoding:as:)`, which
    /// is specialized here (`String(validating:as:)` ran generic, looking up types at each call),
    /// then, unless every byte is ASCII, compared with `utf8`: a repair would have changed it.
    private static func text(_ utf8: UnsafeRawBufferPointer, ascii: Bool) -> String? {
        let text = String(decoding: utf8, as: UTF8.self)
        guard !ascii else { return text }
        var copy = text
        return copy.withUTF8 { UnsafeRawBufferPointer($0).hasSameBytes(as: utf8) } ? text : nil
    }

    /// The rest of a string begun at `start` whose first escape is at the current position.
    private mutating func escapedString(from start: Int) -> String? {
        var text = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return text.withUnsafeBytes { Self.text($0, ascii: !$0.contains { $0 >= 0x80 }) }
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let code = hexQuad(), let scalar = Unicode.Scalar(code) else { return nil }
                    text.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                text.append(byte)
            }
        }
        return nil
    }

    /// The four hexadecimal digits of a `\u` escape.
    private mutating func hexQuad() -> UInt32? {
        guard bytes.count - position >= 4 else { return nil }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            code = code << 4 | UInt32(digit)
            position += 1
        }
        return code
    }

    /// An integer: an optional `-` and 1 to 18 digits, without a leading zero.
    private mutating func integer() -> Int? {
        let start = position
        let negative = take("-")
        let digits = position
        var value = 0
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            // Wrapping: more than 18 digits are refused below, whatever they summed to.
            value = value &* 10 &+ Int(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        let count = position - digits
        guard count >= 1, count <= 18, count == 1 || bytes[digits] != UInt8(ascii: "0") else {
            position = start
            return nil
        }
        return negative ? -value : value
    }

    /// A number in JSON's form (`-`, digits without a leading zero, a fraction, an exponent), as
    /// the nearest `Double`; `nil` for any other form, for one that is not finite or too small to
    /// be a normal number, which `JSONDecoder` refuses (`5e-330` is no `0`), and for a zero with
    /// a fraction or an exponent.
    private mutating func number() -> Double? {
        let start = position
        var nonzero = false
        func digits() -> Int {
            let first = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                if bytes[position] != UInt8(ascii: "0") { nonzero = true }
                position += 1
            }
            return position - first
        }
        _ = take("-")
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits >= 1, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        let fraction = take(".")
        if fraction { guard digits() >= 1 else { return nil } }
        let mantissaIsZero = !nonzero
        let exponent = take("e") || take("E")
        if exponent {
            _ = take("+") || take("-")
            guard digits() >= 1 else { return nil }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        // A zero only as RecordJSON writes one (`0`, `-0`): JSONDecoder refuses some others
        // (`0e1`, `0.00e4`) and not all, by a rule of its own.
        guard let value = Double(text), value.isFinite,
            value == 0 ? mantissaIsZero && !fraction && !exponent : value.magnitude >= .leastNormalMagnitude
        else { return nil }
        return value
    }
}
