import BlobStoreHTTP

/// Where a line's bytes go as they are written: an array (a response head) or a ``ByteCursor``
/// (an access log line, written straight into its batch's buffer). What writes a piece of a
/// head and of a log line, such as ``CacheStatus/append(name:to:)``, is written once for both.
protocol ByteSink {
    /// Appends the bytes of `literal`.
    mutating func append(literal: StaticString)
    /// Appends the bytes of `text`.
    mutating func append(_ text: String)
    /// Appends `value` in decimal, a `-` first when negative.
    mutating func append(decimal value: Int)
    /// Appends one byte.
    mutating func append(byte: UInt8)
    /// Appends `bytes`.
    mutating func append(bytes: UnsafeRawBufferPointer)
}

extension Array: ByteSink where Element == UInt8 {
    mutating func append(literal: StaticString) { HeadWriter.append(literal: literal, to: &self) }
    mutating func append(_ text: String) { HeadWriter.append(text, to: &self) }
    mutating func append(decimal value: Int) { HeadWriter.append(decimal: value, to: &self) }
    mutating func append(byte: UInt8) { append(byte) }
    mutating func append(bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}
