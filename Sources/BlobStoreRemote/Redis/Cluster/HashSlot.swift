/// The hash slot of a key in a Redis Cluster (https://redis.io/docs/reference/cluster-spec/,
/// "Key distribution model"): CRC16 of the key, or of its hash tag, modulo 16384.
///
/// The hash tag is what lies between the first `{` and the first `}` after it, when that is not
/// empty: `{user1}:a` and `{user1}:b` share a slot. Each command this client sends names one
/// key, so no two of its keys need to share one: its keys carry no tag, and spread over every
/// master. A key prefix with a tag in it (`{fleet}`) puts every object on one master.
enum HashSlot {
    /// The number of slots.
    static let count = 16384

    /// The slot of `key`, in `0..<16384`.
    static func slot(of key: some Collection<UInt8>) -> Int {
        Int(crc16(hashedPart(of: key)) & UInt16(count - 1))
    }

    /// The bytes the slot is computed over: the hash tag when there is one, else the whole key.
    static func hashedPart<Key: Collection<UInt8>>(of key: Key) -> Key.SubSequence {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")) else { return key[...] }
        let tagStart = key.index(after: open)
        guard let close = key[tagStart...].firstIndex(of: UInt8(ascii: "}")), close != tagStart else {
            return key[...]
        }
        return key[tagStart..<close]
    }

    /// CRC-16/XMODEM (polynomial 0x1021, initial value 0, no reflection, no final XOR), as
    /// Redis' `crc16.c`: "123456789" gives 0x31C3.
    static func crc16(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    /// The CRC of each byte value, computed bit by bit once.
    private static let table: [UInt16] = (0..<256).map { value in
        var crc = UInt16(value) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
