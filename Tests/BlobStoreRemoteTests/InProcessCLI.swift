import BlobStoreCLI
import BlobStoreTestKit
import Foundation
import Testing

/// What `BlobStoreCLI.run` returned and wrote, run in this process.
struct CLIRun {
    var code: Int32
    var stdout: Data
    var stderr: String
}

/// Runs the CLI in this process with `arguments`, no standard input, and its output through
/// files in `directory` (a large output cannot fill a pipe).
func runCLI(_ arguments: [String], environment: [String: String] = [:], in directory: TemporaryDirectory)
    throws -> CLIRun
{
    let outPath = directory.child("stdout-\(UUID().uuidString)")
    let errPath = directory.child("stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let out = try #require(FileHandle(forWritingAtPath: outPath))
    let err = try #require(FileHandle(forWritingAtPath: errPath))
    let code = BlobStoreCLI.run(
        arguments: arguments, environment: environment, standardInput: FileHandle.nullDevice, standardOutput: out,
        standardError: err)
    try out.close()
    try err.close()
    return CLIRun(
        code: code, stdout: FileManager.default.contents(atPath: outPath) ?? Data(),
        stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self))
}
