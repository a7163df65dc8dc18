import Foundation

/// A reply in the Redis serialization protocol, version 2 (https://redis.io/docs/reference/protocol-spec/),
/// as ``RESPDecoder`` reads it.
enum RESPValue: Equatable, Sendable {
    /// `+OK\r\n`
    case simple(String)
    /// `-ERR message\r\n`
    case error(String)
    /// `:1\r\n`
    case integer(Int64)
    /// `$3\r\nabc\r\n`; `$-1\r\n` is `nil`.
    case bulk(Data?)
    /// `*2\r\n…` and its elements; `*-1\r\n` is `nil`. Only commands that expect one accept it
    /// (``RESPLimits/maximumArrayBytes``).
    case array([RESPValue]?)

    /// A command as the client sends it: an array of bulk strings.
    static func command(_ arguments: [Data]) -> Data {
        var encoded = Data("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            encoded.append(contentsOf: "$\(argument.count)\r\n".utf8)
            encoded.append(argument)
            encoded.append(contentsOf: [13, 10])
        }
        return encoded
    }

    /// The value as a server sends it (tests and the fuzz harness write replies with it).
    var encoded: Data {
        switch self {
        case .simple(let text): return Data("+\(text)\r\n".utf8)
        case .error(let text): return Data("-\(text)\r\n".utf8)
        case .integer(let value): return Data(":\(value)\r\n".utf8)
        case .bulk(nil): return Data("$-1\r\n".utf8)
        case .bulk(let data?): return Data("$\(data.count)\r\n".utf8) + data + Data([13, 10])
        case .array(nil): return Data("*-1\r\n".utf8)
        case .array(let elements?):
            return elements.reduce(into: Data("*\(elements.count)\r\n".utf8)) { $0.append($1.encoded) }
        }
    }

    /// The text of a bulk or simple string, when it is UTF-8.
    var text: String? {
        switch self {
        case .simple(let text): return text
        case .bulk(let data?): return String(bytes: data, encoding: .utf8)
        default: return nil
        }
    }
}
