import BlobStore
import BlobStoreTestKit
import Foundation
import Testing

/// A test CA and server certificates made for one test by scripts/test-certificates.sh (with
/// openssl) in a temporary directory, removed by ``remove()``.
struct TestCertificates {
    /// The certificates the script makes, each with its key (`<name>.pem`, `<name>.key`).
    enum Name: String {
        /// Signed by the CA for 127.0.0.1 and localhost, valid now.
        case server
        /// Signed by the CA for 127.0.0.1 and localhost, expired in 2020.
        case expired
        /// Signed by the CA for other.example only.
        case wrongHost = "wrong-host"
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/test-certificates.sh").standardizedFileURL.path

    /// Where the certificates are (kept for the life of the process: servers read them).
    let directory: String

    /// Runs the script; a failure (no openssl) fails the test.
    init() throws {
        let scratch = TemporaryDirectory()
        directory = scratch.path
        let run = try ChildProcess.run("/bin/bash", [Self.script, directory], in: scratch)
        try #require(
            run.status == 0,
            "scripts/test-certificates.sh failed (is openssl installed? run scripts/install-deps.sh): \(run.stderr)")
    }

    /// The test CA, which signed every certificate of ``Name``.
    var caFile: String { directory + "/ca.pem" }
    /// A CA that signed none of them.
    var otherCAFile: String { directory + "/other-ca.pem" }

    /// `<directory>/<name>`, to which `.pem` and `.key` are added.
    func base(_ name: Name) -> String { directory + "/" + name.rawValue }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
