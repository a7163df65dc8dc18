import Foundation

/// A reply: the status and, for a successful `GET`, the body.
struct HTTPResponse: Sendable, Equatable {
    var status: Int
    var body: Data
}
