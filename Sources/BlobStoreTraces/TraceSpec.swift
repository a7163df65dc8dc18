/// The shape of a generated trace, as a command line names it: `zipf:0.8`, `zipf-scan:1.0` or
/// `loop`. The numbers (objects, requests, seed, sizes) are passed apart, as
/// ``TraceParameters``.
package enum TraceSpec: Sendable, Equatable, CustomStringConvertible {
    /// ``TraceGenerator/zipf(alpha:_:)``.
    case zipf(alpha: Double)
    /// ``TraceGenerator/zipfScan(alpha:_:)``.
    case zipfScan(alpha: Double)
    /// ``TraceGenerator/loop(_:)``.
    case loop

    /// The accepted forms, for messages and help.
    package static let forms =
        "zipf:<alpha> (Zipf popularity), zipf-scan:<alpha> (Zipf with one-hit-wonder scans) or loop "
        + "(objects in order, repeated), alpha from \(TraceGenerator.alphas.lowerBound) to "
        + "\(TraceGenerator.alphas.upperBound), as in zipf:0.8"

    /// Reads one of the ``forms``.
    ///
    /// - Throws: ``TraceError/Code/unknownSpec`` for anything else, or an exponent that is not
    ///   a number within ``TraceGenerator/alphas``, with the accepted forms.
    package init(parsing text: String) throws(TraceError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let alpha = parts.count == 2 ? Double(parts[1]) : nil
        switch (parts[0], alpha) {
        case ("zipf", .some(let alpha)) where TraceGenerator.alphas.contains(alpha):
            self = .zipf(alpha: alpha)
        case ("zipf-scan", .some(let alpha)) where TraceGenerator.alphas.contains(alpha):
            self = .zipfScan(alpha: alpha)
        case ("loop", _) where parts.count == 1:
            self = .loop
        default:
            throw TraceError(.unknownSpec, "unknown trace '\(text)': expected \(Self.forms)")
        }
    }

    /// The trace of this shape made from `parameters`.
    ///
    /// - Throws: ``TraceError/Code/invalidParameter`` (see ``TraceGenerator``).
    package func generate(_ parameters: TraceParameters) throws(TraceError) -> [TraceRequest] {
        switch self {
        case .zipf(let alpha): try TraceGenerator.zipf(alpha: alpha, parameters)
        case .zipfScan(let alpha): try TraceGenerator.zipfScan(alpha: alpha, parameters)
        case .loop: try TraceGenerator.loop(parameters)
        }
    }

    /// The text ``init(parsing:)`` reads back as this spec.
    package var description: String {
        switch self {
        case .zipf(let alpha): "zipf:\(alpha)"
        case .zipfScan(let alpha): "zipf-scan:\(alpha)"
        case .loop: "loop"
        }
    }
}
