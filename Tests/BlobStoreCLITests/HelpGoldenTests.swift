import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStoreCLI

/// The help and the usage errors, byte for byte, against the files in `Golden/`: `help/overview.txt`
/// (`blobstore --help`, `blobstore help`, `blobstore`), `help/<subcommand>.txt` (`blobstore
/// <subcommand> --help`, `blobstore help <subcommand>`) and `usage-errors.txt` (what a wrong command
/// line writes to standard error). A change to the text shows up here as a diff of the golden file
/// it changes, reviewed with the code.
@Suite struct HelpGoldenTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// `name` in `Golden/`, as text.
    static func goldenText(_ name: String) throws -> String {
        try String(contentsOf: golden.appendingPathComponent(name), encoding: .utf8)
    }

    /// Runs `blobstore arguments…` in this process: its exit code, standard output and standard error.
    static func run(_ arguments: [String]) throws -> (code: Int32, stdout: String, stderr: String) {
        try withTemporaryDirectory { scratch in
            _ = FileManager.default.createFile(atPath: scratch.child("out"), contents: nil)
            _ = FileManager.default.createFile(atPath: scratch.child("err"), contents: nil)
            let stdout = try FileHandle(forWritingTo: scratch.url.appendingPathComponent("out"))
            let stderr = try FileHandle(forWritingTo: scratch.url.appendingPathComponent("err"))
            let code = BlobStoreCLI.run(
                arguments: arguments, environment: ["BLOBSTORE_DIR": scratch.child("store")],
                standardInput: .nullDevice, standardOutput: stdout, standardError: stderr)
            try stdout.close()
            try stderr.close()
            return (
                code, try String(contentsOfFile: scratch.child("out"), encoding: .utf8),
                try String(contentsOfFile: scratch.child("err"), encoding: .utf8)
            )
        }
    }

    @Test func overviewMatchesItsGoldenFile() throws {
        let expected = try Self.goldenText("help/overview.txt")
        for arguments in [["--help"], ["-h"], ["help"], []] {
            let run = try Self.run(arguments)
            #expect(run.code == 0 && run.stderr.isEmpty, "\(arguments)")
            #expect(run.stdout == expected, "\(arguments)")
        }
    }

    @Test(arguments: Subcommand.allCases)
    func subcommandHelpMatchesItsGoldenFile(_ subcommand: Subcommand) throws {
        let expected = try Self.goldenText("help/\(subcommand.rawValue).txt")
        for arguments in [
            [subcommand.rawValue, "--help"], [subcommand.rawValue, "-h"], ["help", subcommand.rawValue],
        ] {
            let run = try Self.run(arguments)
            #expect(run.code == 0 && run.stderr.isEmpty, "\(arguments)")
            #expect(run.stdout == expected, "\(arguments)")
        }
    }

    /// Each case of `usage-errors.txt`: `## ` and the arguments as a JSON array, then the
    /// standard error expected, up to the next `## `.
    static func usageErrorCases() throws -> [(arguments: [String], stderr: String)] {
        let text = try goldenText("usage-errors.txt")
        var cases: [(arguments: [String], stderr: String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                let arguments = try JSONDecoder().decode([String].self, from: Data(line.dropFirst(3).utf8))
                cases.append((arguments, ""))
            } else if !cases.isEmpty {
                cases[cases.count - 1].stderr += line + "\n"
            }
        }
        if let last = cases.indices.last { cases[last].stderr.removeLast() }
        return cases
    }

    @Test func usageErrorsMatchTheGoldenFile() throws {
        let cases = try Self.usageErrorCases()
        #expect(cases.count > 50)
        for (arguments, expected) in cases {
            let run = try Self.run(arguments)
            #expect(run.code == ExitCode.usage && run.stdout.isEmpty, "\(arguments)")
            #expect(run.stderr == expected, "\(arguments)")
        }
    }
}
