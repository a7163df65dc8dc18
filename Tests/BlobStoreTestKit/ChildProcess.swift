import Foundation
import Glibc

/// How a child process ended, what it wrote, and its peak memory.
public struct Execution: Sendable {
    /// The exit status, or -1 when a signal ended the process (``signal``).
    public var status: Int32
    /// The signal that ended the process, if one did.
    public var signal: Int32?
    public var standardOutput: Data
    public var standardError: Data
    /// The child's own peak resident memory (`ru_maxrss` from `wait4(2)`), in bytes: its
    /// high-water mark alone, whatever the test process and its other threads use.
    public var peakResidentBytes: Int

    public var stdout: String { String(decoding: standardOutput, as: UTF8.self) }
    public var stderr: String { String(decoding: standardError, as: UTF8.self) }
}

/// Why a child process could not be run.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String
}

/// The one way the tests run a program to its end: `posix_spawn(3)`, standard input from a file,
/// standard output and error into files (a large output cannot fill a pipe and deadlock), and
/// `wait4(2)`, whose resource usage gives the child's own peak memory.
public enum ChildProcess {
    /// Runs `executable` with `arguments` to its end.
    ///
    /// - Parameters:
    ///   - executable: The program's path.
    ///   - arguments: Its arguments, without the program name.
    ///   - input: What it reads on standard input.
    ///   - environment: Variables set on top of this process's environment.
    ///   - scratch: Where the input and output files go (removed afterwards).
    public static func run(
        _ executable: String, _ arguments: [String], input: Data = Data(), environment: [String: String] = [:],
        in scratch: TemporaryDirectory
    ) throws -> Execution {
        let id = UUID().uuidString
        let inputPath = try scratch.write("io-\(id).in", input)
        let outputPath = scratch.child("io-\(id).out")
        let errorPath = scratch.child("io-\(id).err")
        defer {
            for path in [inputPath, outputPath, errorPath] { try? FileManager.default.removeItem(atPath: path) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else is inherited: a pipe another test opened, held by a child of this one, would
        // keep that test's reader waiting for the end of its input. (A descriptor closed meanwhile
        // is no error to posix_spawn.)
        for fd in openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }

        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw ChildProcessError(description: "cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: CInt = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else {
                throw ChildProcessError(
                    description: "wait4 failed for \(executable): \(String(cString: strerror(errno)))")
            }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Glibc does not import as functions.
        let signal = status & 0x7f
        return Execution(
            status: signal == 0 ? (status >> 8) & 0xff : -1, signal: signal == 0 ? nil : signal,
            standardOutput: FileManager.default.contents(atPath: outputPath) ?? Data(),
            standardError: FileManager.default.contents(atPath: errorPath) ?? Data(),
            peakResidentBytes: usage.ru_maxrss * 1024)
    }

    /// The descriptors open in this process now (/proc/self/fd).
    private static func openDescriptors() -> [CInt] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { CInt($0) }
    }

    /// Runs `executable` with `arguments` to its end, its output thrown away; its exit status, or
    /// -1 when it could not start or a signal ended it.
    @discardableResult
    public static func status(_ executable: String, _ arguments: [String]) -> Int32 {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        return (try? run(executable, arguments, in: scratch))?.status ?? -1
    }
}
