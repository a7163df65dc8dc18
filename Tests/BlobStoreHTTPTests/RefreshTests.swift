import Foundation
import Testing

@testable import BlobStoreHTTP

/// `StoredResponse.refreshed(byNotModified:requestTime:responseTime:)`: a 304's refresh parses
/// again only what the 304 changed, and must come out as a full parse of the refreshed fields.
@Suite struct RefreshTests {
    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    private func stored(_ headers: KeyValuePairs<String, String>) -> StoredResponse {
        StoredResponse(
            url: "http://h/x", status: 200, headers: HTTPHeaders(headers.map { .init(name: $0.key, value: $0.value) }),
            vary: nil, requestTime: t0.addingTimeInterval(-100), responseTime: t0.addingTimeInterval(-100))
    }

    private static let storedFields: [KeyValuePairs<String, String>] = [
        [
            "Date": "Tue, 14 Nov 2023 22:11:00 GMT", "Cache-Control": "no-cache", "ETag": "\"a\"",
            "Last-Modified": "Mon, 13 Nov 2023 10:00:00 GMT", "Content-Length": "4096", "Server": "s",
        ],
        [
            "Date": "Tue, 14 Nov 2023 22:11:00 GMT", "Age": "30", "Expires": "Tue, 14 Nov 2023 23:11:00 GMT",
            "Cache-Control": "max-age=60, no-cache=\"Set-Cookie\", private=\"X-Secret\"", "Set-Cookie": "a=1",
            "X-Secret": "s", "Via": "1.1 up", "Cache-Status": "up; hit", "ETag": "\"b\"",
        ],
        ["Cache-Control": "must-revalidate, max-age=0", "ETag": "\"c\"", "Expires": "0"],
    ]

    private static let notModified: [KeyValuePairs<String, String>] = [
        // Times only: the fields other than Date and Age are taken from the stored ones.
        ["Date": "Tue, 14 Nov 2023 22:13:20 GMT"],
        ["Date": "Tue, 14 Nov 2023 22:13:20 GMT", "Age": "7"],
        [:],
        // More than times: everything is parsed again.
        ["Date": "Tue, 14 Nov 2023 22:13:20 GMT", "Cache-Control": "max-age=600"],
        ["Expires": "Tue, 14 Nov 2023 23:59:00 GMT", "Via": "1.1 other"],
        ["Last-Modified": "Tue, 14 Nov 2023 11:00:00 GMT", "Cache-Status": "other; fwd=stale"],
        ["X-New": "1", "Connection": "close"],
    ]

    @Test("A refreshed record's parsed fields are those of its headers", arguments: 0..<3, 0..<7)
    func refreshedFieldsMatchAFullParse(storedIndex: Int, notModifiedIndex: Int) {
        let response = stored(Self.storedFields[storedIndex])
        let notModified = HTTPHeaders(Self.notModified[notModifiedIndex].map { .init(name: $0.key, value: $0.value) })
        let refreshed = response.refreshed(byNotModified: notModified, requestTime: t0, responseTime: t0)
        #expect(refreshed.headers == response.updatingHeaders(with: notModified, receivedAt: t0))
        #expect(refreshed.requestTime == t0)
        #expect(refreshed.responseTime == t0)
        let parsed = ResponseFields(refreshed.headers)
        #expect(refreshed.fields !== response.fields)
        #expect(refreshed.fields == parsed)
        #expect(refreshed.fields.passedLines == parsed.passedLines)
        #expect(refreshed.fields.date == parsed.date && refreshed.fields.age == parsed.age)
        // The stored response is left as it was.
        #expect(response.fields == ResponseFields(response.headers))
    }
}
