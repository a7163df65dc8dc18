/// Lowercase hexadecimal of `bytes`, two characters a byte: the written form of digests.
func lowercaseHex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var utf8: [UInt8] = []
    utf8.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        utf8.append(digits[Int(byte >> 4)])
        utf8.append(digits[Int(byte & 0xf)])
    }
    return String(decoding: utf8, as: UTF8.self)
}
