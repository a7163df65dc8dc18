import Foundation

/// How ``HTTPCacheBackend`` authenticates to the cache server.
public enum HTTPAuthentication: Sendable, Equatable {
    /// No `Authorization` header.
    case none
    /// `Authorization: Basic <base64(user:password)>` (RFC 7617), as nginx `auth_basic` and
    /// bazel-remote's `--htpasswd_file` expect.
    case basic(user: String, password: String)
    /// `Authorization: Bearer <token>` (RFC 6750).
    case bearer(String)

    /// The `Authorization` header field's value, or `nil` for ``none``.
    var headerValue: String? {
        switch self {
        case .none: nil
        case .basic(let user, let password): "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case .bearer(let token): "Bearer " + token
        }
    }
}
