import Foundation

/// A reply in the Redis serialization protocol, version 2 (https://redis.io/docs/reference/protocol-spec/).
/// Arrays (`*2\r\n…`) are not among them: ``RedisConnection`` refuses them.
enum RESPValue: Equatable {
    /// `+OK\r\n`
    case simple(String)
    /// `-ERR message\r\n`
    case error(String)
    /// `:1\r\n`
    case integer(Int64)
    /// `$3\r\nabc\r\n`; `$-1\r\n` is `nil`.
    case bulk(Data?)

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
}
