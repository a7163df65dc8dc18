import BlobStoreHTTP
import Foundation

// URLs, addresses and request headers: `fetch <url>`, `serve --origin`, `--listen`, `--header`.

extension ValueParser<String> {
    /// `fetch <url>`: an absolute `http` or `https` URL with a host, taken as given.
    static var httpURL: ValueParser {
        ValueParser(
            forms: "a URL such as 'https://example.com/file'",
            read: { text throws(ValueProblem) in
                let components = URLComponents(string: text)
                let scheme = components?.scheme?.lowercased()
                guard scheme == "http" || scheme == "https", components?.host?.isEmpty == false else {
                    throw ValueProblem("it is not an http or https URL")
                }
                return text
            }, spell: { $0 })
    }

    /// `serve --origin`: an `http` URL with a host and no query or fragment, taken as given.
    static var origin: ValueParser {
        ValueParser(
            forms: "a URL such as 'http://127.0.0.1:8000'",
            read: { text throws(ValueProblem) in
                guard let components = URLComponents(string: text), components.scheme?.lowercased() == "http",
                    components.host?.isEmpty == false
                else { throw ValueProblem("it is not an http URL with a host") }
                if components.query != nil || components.fragment != nil {
                    throw ValueProblem("it has a query or a fragment")
                }
                return text
            }, spell: { $0 })
    }
}

extension ValueParser<SocketAddress> {
    /// `--listen`, `--metrics`: a ``SocketAddress``.
    static var socketAddress: ValueParser {
        ValueParser(
            forms: "an IP address and a port, e.g. 127.0.0.1:8080",
            read: { text throws(ValueProblem) in
                guard let address = SocketAddress(text) else { throw ValueProblem() }
                return address
            }, spell: \.text)
    }
}

extension ValueParser<HTTPHeaders.Field> {
    /// `--header 'Name: value'`: a request header field, its name a token, its value without
    /// surrounding whitespace and without a line break.
    static var header: ValueParser {
        ValueParser(
            forms: "'Name: value', e.g. 'Accept-Encoding: gzip'",
            read: { text throws(ValueProblem) in
                if let problem = headerProblem(text) { throw ValueProblem(problem) }
                let colon = text.firstIndex(of: ":") ?? text.endIndex  // there is one: headerProblem found it
                let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                return HTTPHeaders.Field(name: String(text[..<colon]), value: value)
            }, spell: { "\($0.name): \($0.value)" })
    }

    /// Why `header` is not a `Name: value` request header, or `nil` when it is one.
    static func headerProblem(_ header: String) -> String? {
        guard let colon = header.firstIndex(of: ":") else { return "it has no ':'" }
        let name = header[..<colon]
        if name.isEmpty { return "the name is empty" }
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789")
            .union(CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        if !name.unicodeScalars.allSatisfy(token.contains) {
            return "the name \(ArgumentParser.shown(String(name))) is not a token"
        }
        if header[colon...].contains(where: { $0 == "\r" || $0 == "\n" }) { return "the value has a line break" }
        return nil
    }
}
