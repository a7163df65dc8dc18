import Foundation

/// A server's response as ``ResponseBodies`` received it: its status, its headers (describing
/// the body as held), the URL that answered and the body.
struct ReceivedResponse<Body: Sendable>: Sendable {
    var status: Int
    var headers: HTTPHeaders
    /// The request's URL, or where its redirects led.
    var url: URL
    var body: Body
}
