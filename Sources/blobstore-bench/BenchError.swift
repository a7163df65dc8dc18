/// A benchmark that cannot run: bad arguments or missing data. Printed, exit status 2.
struct BenchError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
