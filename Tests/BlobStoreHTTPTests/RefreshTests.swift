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
        // Two Date fields (no single line to replace), and one in lowercase amid the others.
        ["Date": "Tue, 14 Nov 2023 22:11:00 GMT", "ETag": "\"d\"", "Date": "Tue, 14 Nov 2023 22:11:01 GMT"],
        ["ETag": "\"e\"", "date": "Tue, 14 Nov 2023 22:11:00 GMT", "Cache-Control": "no-cache", "Server": "s"],
        // A Date that no-cache="…" leaves out of the served lines.
        ["Date": "Tue, 14 Nov 2023 22:11:00 GMT", "Cache-Control": "no-cache=\"Date\"", "ETag": "\"f\""],
    ]

    private static let notModified: [KeyValuePairs<String, String>] = [
        // Times only: the fields other than Date and Age are taken from the stored ones.
        ["Date": "Tue, 14 Nov 2023 22:13:20 GMT"],
        ["Date": "Tue, 14 Nov 2023 22:13:20 GMT", "Age": "7"],
        [:],
        // The stored date again (nothing set but Age), and in another case.
        ["Date": "Tue, 14 Nov 2023 22:11:00 GMT"],
        ["Age": "3", "date": "Tue, 14 Nov 2023 22:11:00 GMT"],
        // More than times: everything is parsed again.
        ["Date": "Tue, 14 Nov 2023 22:13:20 GMT", "Cache-Control": "max-age=600"],
        ["Expires": "Tue, 14 Nov 2023 23:59:00 GMT", "Via": "1.1 other"],
        ["Last-Modified": "Tue, 14 Nov 2023 11:00:00 GMT", "Cache-Status": "other; fwd=stale"],
        ["X-New": "1", "Connection": "close"],
    ]

    @Test("A refreshed record's parsed fields are those of its headers", arguments: 0..<6, 0..<9)
    func refreshedFieldsMatchAFullParse(storedIndex: Int, notModifiedIndex: Int) {
        let response = stored(Self.storedFields[storedIndex])
        let notModified = HTTPHeaders(Self.notModified[notModifiedIndex].map { .init(name: $0.key, value: $0.value) })
        let (refreshed, timesOnly) = response.refreshed(byNotModified: notModified, requestTime: t0, responseTime: t0)
        #expect(refreshed.headers == response.updatingHeaders(with: notModified, receivedAt: t0))
        #expect(timesOnly == Self.differInTimesOnly(response.headers, refreshed.headers))
        #expect(timesOnly == (notModifiedIndex < 5))
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

    /// Names a generated field takes: times, validators, fields served and fields not, in
    /// several cases.
    private static let names = [
        "Date", "date", "DATE", "Age", "age", "ETag", "Last-Modified", "Cache-Control", "Expires", "Server", "X-A",
        "Via", "Cache-Status", "Content-Length", "Connection", "Set-Cookie",
    ]
    /// Values a generated field takes: dates, numbers, directives (some naming fields to leave
    /// out), lists.
    private static let values = [
        "Tue, 14 Nov 2023 22:11:00 GMT", "Tue, 14 Nov 2023 22:13:20 GMT", "7", "0", "no-cache", "max-age=60",
        "no-cache=\"Date, Set-Cookie\"", "private=\"X-A\"", "\"a\"", "1.1 up", "a, b", "close", "",
    ]

    @Test("Generated 304s refresh generated records as a full parse of the result does")
    func generatedRefreshesMatchAFullParse() {
        var random = SystemRandomNumberGenerator()
        func headers(_ count: Int) -> HTTPHeaders {
            HTTPHeaders(
                (0..<count).map { _ in
                    .init(
                        name: Self.names.randomElement(using: &random)!,
                        value: Self.values.randomElement(using: &random)!)
                })
        }
        var timesOnlyCount = 0
        for _ in 0..<20_000 {
            let response = stored([:])
            var record = response
            record.headers = headers(Int.random(in: 0...8, using: &random))
            // Half the 304s are the stored fields' times only, as most are.
            let notModified: HTTPHeaders
            if Bool.random(using: &random) {
                notModified = HTTPHeaders(
                    record.headers.fields.filter { ["date", "age"].contains($0.name.lowercased()) }
                        + headers(Int.random(in: 0...1, using: &random)).fields.filter {
                            ["date", "age"].contains($0.name.lowercased())
                        })
            } else {
                notModified = headers(Int.random(in: 0...4, using: &random))
            }
            let (refreshed, timesOnly) = record.refreshed(byNotModified: notModified, requestTime: t0, responseTime: t0)
            #expect(refreshed.headers == record.updatingHeaders(with: notModified, receivedAt: t0))
            #expect(timesOnly == Self.differInTimesOnly(record.headers, refreshed.headers))
            #expect(refreshed.fields == ResponseFields(refreshed.headers), "\(record.headers) by \(notModified)")
            if timesOnly { timesOnlyCount += 1 }
        }
        // Both ways of refreshing were taken many times.
        #expect(timesOnlyCount > 5_000 && timesOnlyCount < 15_000)
    }

    /// Whether `first` and `second` have the same fields in the same order but for `Date` and
    /// `Age`: what the refresh's `changedTimesOnly` must say, compared field by field.
    private static func differInTimesOnly(_ first: HTTPHeaders, _ second: HTTPHeaders) -> Bool {
        func untimed(_ headers: HTTPHeaders) -> [HTTPHeaders.Field] {
            headers.fields.filter { !["date", "age"].contains($0.name.lowercased()) }
        }
        return untimed(first) == untimed(second)
    }
}
