/// The one error type of BlobStoreTraces: a trace that cannot be read or written, a trace
/// specification that cannot be parsed, or generator parameters out of range.
///
/// ``description`` says what is wrong, where (the line of a CSV trace, the record of a binary
/// one, the file) and what to do about it.
package struct TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    package enum Code: Sendable, Equatable {
        /// A binary trace ends inside a record.
        case truncated
        /// A CSV line is not `time,id,size`, or the header is missing.
        case malformed
        /// A number does not fit its field (a size over 32 bits, a time over oracleGeneral's
        /// 32-bit clock).
        case outOfRange
        /// A trace specification that is none of the accepted forms (``TraceSpec``).
        case unknownSpec
        /// A generator parameter out of range (``TraceParameters``).
        case invalidParameter
        /// A trace file could not be read or written.
        case io
    }

    package var code: Code
    /// What is wrong, where, and what to do.
    package var message: String
    /// The 1-based line of a CSV trace the error is on, when it is about one.
    package var line: Int?
    /// The 0-based index of the binary record or of the request the error is about, when it is
    /// about one.
    package var record: Int?

    package init(_ code: Code, _ message: String, line: Int? = nil, record: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.record = record
    }

    package var description: String { message }
}
