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

    /// Whether `token` is an RFC 7235 `token68` (letters, digits, `-._~+/`, then `=` padding), the
    /// only bearer tokens sent: anything else (a CR or LF above all) could inject header lines.
    static func isToken68(_ token: String) -> Bool {
        let body = token.utf8.reversed().drop { $0 == UInt8(ascii: "=") }
        return !body.isEmpty
            && body.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "-._~+/".utf8.contains(byte)
            }
    }

    /// The `Authorization` header field's value, or `nil` for ``none``.
    var headerValue: String? {
        switch self {
        case .none: nil
        case .basic(let user, let password): "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case .bearer(let token): "Bearer " + token
        }
    }
}
