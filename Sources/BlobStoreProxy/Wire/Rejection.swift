/// Why a client's request cannot be served: the status to answer with and the reason, which the
/// access log records and the response body states. Not an API error: the proxy answers it and
/// closes the connection.
struct Rejection: Error, Sendable, Equatable {
    /// The status code of the answer: 400, 408, 413, 414, 431, 501 or 505.
    var status: Int
    /// What was wrong, for the log and the body.
    var reason: String

    init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }
}
