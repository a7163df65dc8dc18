import BlobStore
import BlobStoreCache
import Foundation

/// The JSON of a ``CacheRecord``, written directly: the bytes `JSONEncoder` with sorted keys
/// writes for it (so records written before and after read and compare alike), at a fraction of
/// its cost. A 304 rewrites a stored record at every revalidation, and encoding it through
/// `Codable` was the largest part of that work. Read back with `JSONDecoder`, as before.
struct RecordJSON {
    private var bytes: [UInt8] = []
    /// Whether the object or array being written has no member yet (no comma before the next).
    private var first = true

    /// The JSON of `record`.
    ///
    /// - Throws: `unencodable` for a time that is not a finite number, as `JSONEncoder` does.
    static func encode(_ record: CacheRecord) throws -> Data {
        if let response = record.response,
            !response.requestTime.timeIntervalSinceReferenceDate.isFinite
                || !response.responseTime.timeIntervalSinceReferenceDate.isFinite
        {
            throw BlobStoreError(.unencodable, "An HTTP cache record could not be encoded: a time is not a number.")
        }
        var json = RecordJSON()
        // Room for the whole record at once, escapes aside: each field's name and value with the
        // JSON around them, the URL, and the rest (times, status, names, brackets).
        let fields = record.response?.headers.fields ?? []
        json.bytes.reserveCapacity(
            fields.reduce(256 + (record.response?.url.utf8.count ?? 0)) {
                $0 + $1.name.utf8.count + $1.value.utf8.count + 32
            })
        json.open("{")
        if let response = record.response {
            json.key("response")
            json.response(response)
        }
        if let variants = record.variants {
            json.key("variants")
            json.open("[")
            for name in variants {
                json.element()
                json.string(name)
            }
            json.close("]")
        }
        json.key("version")
        json.integer(record.version)
        json.close("}")
        return Data(json.bytes)
    }

    /// A ``StoredResponse`` as its synthesized `Codable` conformances have it, keys sorted.
    private mutating func response(_ response: StoredResponse) {
        open("{")
        key("headers")
        open("{")
        key("fields")
        open("[")
        for field in response.headers.fields {
            element()
            open("{")
            key("name")
            string(field.name)
            key("value")
            string(field.value)
            close("}")
        }
        close("]")
        close("}")
        key("requestTime")
        date(response.requestTime)
        key("responseTime")
        date(response.responseTime)
        key("status")
        integer(response.status)
        key("url")
        string(response.url)
        if let vary = response.vary {
            key("vary")
            open("{")
            key("elements")
            open("[")
            for variant in vary.elements {
                element()
                open("{")
                key("name")
                string(variant.name)
                if let value = variant.value {
                    key("value")
                    string(value)
                }
                close("}")
            }
            close("]")
            close("}")
        }
        close("}")
    }

    // MARK: - Values

    /// Begins an object (`{`) or an array (`[`).
    private mutating func open(_ bracket: Unicode.Scalar) {
        bytes.append(UInt8(ascii: bracket))
        first = true
    }

    /// Ends the object (`}`) or array (`]`) begun last; it is a value of the one around it.
    private mutating func close(_ bracket: Unicode.Scalar) {
        bytes.append(UInt8(ascii: bracket))
        first = false
    }

    /// Begins the member `name` of an object: its value follows. A name is one of this file's
    /// literals, none of which has a byte to escape, so its bytes are copied as they are (a record
    /// of ten fields has some thirty names).
    private mutating func key(_ name: StaticString) {
        element()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Begins an element of an array (or a member of an object): a comma after the one before.
    private mutating func element() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
    }

    private mutating func integer(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A date as `JSONEncoder`'s default strategy writes it: seconds since 2001 as a number,
    /// without a fraction when it is whole.
    private mutating func date(_ date: Date) {
        var text = String(date.timeIntervalSinceReferenceDate)
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// A string with `"`, `\`, `/` and the control characters escaped, as `JSONEncoder` does;
    /// everything else as its UTF-8.
    private mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Runs of bytes that need no escape are appended whole.
            var start = 0
            for index in 0..<utf8.count where Self.needsEscape(utf8[index]) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(utf8[index])
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether `JSONEncoder` writes `byte` escaped: a quote, a backslash, a slash or a control
    /// character.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
    }

    /// Appends `byte` escaped as `JSONEncoder` writes it, a byte at a time (an array literal per
    /// escape would be allocated, and URLs have a slash in every segment).
    private mutating func escape(_ byte: UInt8) {
        bytes.append(0x5C)
        switch byte {
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        default: bytes.append(byte)  // a quote, a backslash or a slash
        }
    }
}
