import BlobStoreTestKit
import Foundation
import Testing

/// The example programs of `Examples/` run as documented (Examples/README.md), so a change to
/// the library that breaks one fails the tests, not only a reader.
@Suite("Examples")
struct ExampleTests {
    @Test("ImageCacheExample runs with no argument, renders each thumbnail once and exits 0")
    func imageCacheExampleRuns() throws {
        try withTemporaryDirectory { scratch in
            let run = try runBuiltExecutable("ImageCacheExample", [], in: scratch)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines.contains("thumb:photo-1@64 again: 16384 bytes, renders so far: 6"))
            #expect(lines.contains("thumb:photo-7@64: 8 answers of 16384 bytes, renders: 1"))
            #expect(lines.contains("info:photo-1@64: photo-1, 64 × 64 pixels, rgba8"))
            #expect(lines.contains("entry(for: thumb:photo-2@64)?.tier: disk"))
            #expect(lines.contains("value(for: thumb:photo-3@64, orInsert:): renders: 0"))
            #expect(lines.contains("renders: 7 in all, for 7 thumbnails"))
        }
    }

    @Test("ImageCacheExample given a directory keeps its store there: a second run renders nothing")
    func imageCacheExampleKeepsItsStore() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("thumbnails")
            #expect(try runBuiltExecutable("ImageCacheExample", [store], in: scratch).status == 0)
            let again = try runBuiltExecutable("ImageCacheExample", [store], in: scratch)
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(again.stdout.contains("renders: 0 in all, for 7 thumbnails"))
        }
    }
}

/// Runs the executable `name` of the package's build products with `arguments`.
private func runBuiltExecutable(_ name: String, _ arguments: [String], in scratch: TemporaryDirectory) throws
    -> Execution
{
    try ChildProcess.run(BuiltProducts.executable(name), arguments, in: scratch)
}
