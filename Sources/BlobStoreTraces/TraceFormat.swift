/// The two trace file formats libCacheSim and this package share, for code that picks one at run
/// time (a command-line option, the fuzz harness's first byte).
package enum TraceFormat: String, Sendable, CaseIterable {
    /// libCacheSim's oracleGeneral binary records (``OracleGeneralFormat``).
    case oracleGeneral
    /// `time,id,size` lines after a header (``CSVTraceFormat``).
    case csv

    /// The requests of a whole trace in this format.
    ///
    /// - Throws: ``TraceError`` naming the record or line that cannot be read.
    package func read(_ bytes: some Collection<UInt8>) throws(TraceError) -> [TraceRequest] {
        switch self {
        case .oracleGeneral: try OracleGeneralFormat.read(bytes)
        case .csv: try CSVTraceFormat.read(bytes)
        }
    }

    /// `requests` as a trace in this format.
    ///
    /// - Throws: ``TraceError/Code/outOfRange`` when a time does not fit oracleGeneral's 32 bits;
    ///   CSV never fails.
    package func encode(_ requests: [TraceRequest]) throws(TraceError) -> [UInt8] {
        switch self {
        case .oracleGeneral: try OracleGeneralFormat.encode(requests)
        case .csv: CSVTraceFormat.encode(requests)
        }
    }

    /// The requests of the trace file at `path`, read whole into memory (24 bytes a request for
    /// oracleGeneral, plus the requests themselves).
    ///
    /// - Throws: ``TraceError/Code/io`` when the file cannot be read, or what ``read(_:)`` throws,
    ///   with the path added to the message.
    package func read(path: String) throws(TraceError) -> [TraceRequest] {
        let bytes = try TraceFile.read(path: path)
        do {
            return try read(bytes)
        } catch {
            var located = error
            located.message = "\(path): \(error.message)"
            throw located
        }
    }

    /// Writes `requests` to the file at `path` in this format, replacing what it held, so that
    /// libCacheSim can replay the same trace.
    ///
    /// - Throws: What ``encode(_:)`` throws, or ``TraceError/Code/io``.
    package func write(_ requests: [TraceRequest], path: String) throws(TraceError) {
        try TraceFile.write(encode(requests), path: path)
    }
}
