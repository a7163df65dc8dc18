import BlobStoreNet
import Foundation

/// Where a ``RESPDecoder`` reads a reply from: a connection (``TCPConnection``), or bytes in
/// memory (``RESPBuffer``: tests and the fuzz harness).
protocol RESPByteSource {
    /// The bytes up to the next CRLF, without it; a line longer than `maximum` throws.
    mutating func readLine(maximum: Int) throws -> [UInt8]
    /// Exactly `count` bytes.
    mutating func readExactly(_ count: Int) throws -> Data
}

/// How much of a reply a command accepts.
struct RESPLimits: Sendable, Equatable {
    /// The longest status, error, integer or length line.
    var maximumLine = 64 << 10
    /// The longest bulk string, alone or in an array.
    var maximumBulk: Int
    /// What an array reply may cost in all: each element counts ``RESPDecoder/elementCost``
    /// bytes plus its string's length. 0 refuses arrays (no data command expects one).
    var maximumArrayBytes = 0
    /// The deepest nesting of arrays.
    var maximumDepth = 8
}

/// A reply that is not what the limits accept, or not the protocol.
enum RESPDecodingError: Error, Equatable {
    /// Not RESP2: what was wrong.
    case malformed(String)
    /// A bulk string longer than ``RESPLimits/maximumBulk``.
    case bulkTooLarge(size: Int, maximum: Int)
    /// An array reply over ``RESPLimits/maximumArrayBytes``.
    case arrayTooLarge(maximum: Int)
    /// The bytes ended inside a value (``RESPBuffer`` only; a connection throws its own error).
    case truncated
}

/// Reads one RESP2 value with every length bounded, so that a hostile server can make it
/// neither trap nor allocate more than the limits: a declared length is checked before anything
/// is reserved for it, and nesting is bounded, so recursion is too.
struct RESPDecoder {
    /// What one array element counts against ``RESPLimits/maximumArrayBytes`` besides its
    /// string: about what a ``RESPValue`` in an array takes in memory.
    static let elementCost = 64

    let limits: RESPLimits
    /// What is left of ``RESPLimits/maximumArrayBytes`` for the reply being read.
    private var budget = 0

    init(limits: RESPLimits) {
        self.limits = limits
    }

    /// The next value of `source`.
    mutating func decode(from source: inout some RESPByteSource) throws -> RESPValue {
        budget = limits.maximumArrayBytes
        return try value(from: &source, depth: 0)
    }

    private mutating func value(from source: inout some RESPByteSource, depth: Int) throws -> RESPValue {
        let line = try source.readLine(maximum: limits.maximumLine)
        guard let type = line.first else { throw RESPDecodingError.malformed("an empty reply line") }
        let rest = String(decoding: line.dropFirst(), as: UTF8.self)
        switch type {
        case UInt8(ascii: "+"):
            try charge(line.count, inArray: depth > 0)
            return .simple(rest)
        case UInt8(ascii: "-"):
            try charge(line.count, inArray: depth > 0)
            return .error(rest)
        case UInt8(ascii: ":"):
            guard let value = Int64(rest) else { throw RESPDecodingError.malformed("a bad integer") }
            return .integer(value)
        case UInt8(ascii: "$"):
            guard let length = Int(rest), length >= -1 else { throw RESPDecodingError.malformed("a bad bulk length") }
            if length == -1 { return .bulk(nil) }
            guard length <= limits.maximumBulk else {
                throw RESPDecodingError.bulkTooLarge(size: length, maximum: limits.maximumBulk)
            }
            try charge(length, inArray: depth > 0)
            let (total, overflow) = length.addingReportingOverflow(2)
            guard !overflow else { throw RESPDecodingError.malformed("a bad bulk length") }
            let data = try source.readExactly(total)
            guard data.suffix(2).elementsEqual([13, 10]) else {
                throw RESPDecodingError.malformed("a bulk string without CRLF")
            }
            return .bulk(data.prefix(length))
        case UInt8(ascii: "*"):
            return .array(try array(rest, from: &source, depth: depth))
        default:
            throw RESPDecodingError.malformed("an unknown reply type")
        }
    }

    /// The elements of an array whose length line said `count`; `nil` for `*-1`.
    private mutating func array(_ count: String, from source: inout some RESPByteSource, depth: Int) throws
        -> [RESPValue]?
    {
        guard limits.maximumArrayBytes > 0 else { throw RESPDecodingError.malformed("an array reply") }
        guard let count = Int(count), count >= -1 else { throw RESPDecodingError.malformed("a bad array length") }
        if count == -1 { return nil }
        guard depth < limits.maximumDepth else {
            throw RESPDecodingError.malformed("arrays nested deeper than \(limits.maximumDepth)")
        }
        guard count <= budget / Self.elementCost else {
            throw RESPDecodingError.arrayTooLarge(maximum: limits.maximumArrayBytes)
        }
        budget -= count * Self.elementCost
        var elements: [RESPValue] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try value(from: &source, depth: depth + 1)) }
        return elements
    }

    /// Takes the `bytes` of a string in an array off the budget of the reply.
    private mutating func charge(_ bytes: Int, inArray: Bool) throws {
        guard inArray else { return }
        guard bytes <= budget else { throw RESPDecodingError.arrayTooLarge(maximum: limits.maximumArrayBytes) }
        budget -= bytes
    }
}

/// Reply bytes in memory, as a ``RESPByteSource``.
struct RESPBuffer: RESPByteSource {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: some Sequence<UInt8>) {
        self.bytes = Array(bytes)
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { offset == bytes.count }

    mutating func readLine(maximum: Int) throws -> [UInt8] {
        var end = offset
        while end + 1 < bytes.count, bytes[end] != 13 || bytes[end + 1] != 10 { end += 1 }
        let found = end + 1 < bytes.count
        guard (found ? end : bytes.count) - offset <= maximum else {
            throw RESPDecodingError.malformed("a line longer than \(maximum) bytes")
        }
        guard found else { throw RESPDecodingError.truncated }
        defer { offset = end + 2 }
        return Array(bytes[offset..<end])
    }

    mutating func readExactly(_ count: Int) throws -> Data {
        guard count <= bytes.count - offset else { throw RESPDecodingError.truncated }
        defer { offset += count }
        return Data(bytes[offset..<offset + count])
    }
}

extension TCPConnection: RESPByteSource {}
