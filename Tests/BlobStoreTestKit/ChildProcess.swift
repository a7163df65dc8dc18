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
    /// The child's own peak resident memory, in bytes: the largest `VmHWM` of
    /// `/proc/<pid>/status` read while it ran (``RunningChild/wait()`` reads it every
    /// millisecond), whatever the test process and its other threads use. Not `ru_maxrss` from
    /// `wait4(2)`: `posix_spawn` runs the child in this process's memory until its `exec`, and
    /// the kernel then keeps this process's high-water mark as the child's, so a child of a test
    /// process that had grown to 300 MiB reported at least 300 MiB. `ru_maxrss` stands in only for
    /// a child that ended before a first reading.
    public var peakResidentBytes: Int

    public var stdout: String { String(decoding: standardOutput, as: UTF8.self) }
    public var stderr: String { String(decoding: standardError, as: UTF8.self) }
}

/// Why a child process could not be run.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String
}

/// The one way the tests start a program: `posix_spawn(3)`, standard input from a file,
/// standard output and error into files (a large output cannot fill a pipe and deadlock; what
/// was written so far can be read while it runs), no other descriptor inherited, and
/// `wait4(2)`; the child's own peak memory is read from `/proc` while it runs
/// (``Execution/peakResidentBytes``).
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
        try start(executable, arguments, input: input, environment: environment, in: scratch).wait()
    }

    /// Starts `executable` with `arguments`; the caller waits for it (``RunningChild/wait()``).
    /// The parameters are those of ``run(_:_:input:environment:in:)``.
    public static func start(
        _ executable: String, _ arguments: [String], input: Data = Data(), environment: [String: String] = [:],
        in scratch: TemporaryDirectory
    ) throws -> RunningChild {
        let id = UUID().uuidString
        let files = RunningChild.Files(
            input: try scratch.write("io-\(id).in", input), output: scratch.child("io-\(id).out"),
            error: scratch.child("io-\(id).err"))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, files.input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, files.output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, files.error, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
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
        // The child starts with no signal blocked and every signal at its default: the test
        // process blocks signals in its threads (the test runner's), and a child inheriting that
        // mask would never see the SIGTERM a test sends it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            files.remove()
            throw ChildProcessError(description: "cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        return RunningChild(pid: pid, executable: executable, files: files)
    }

    /// Runs `executable` with `arguments` to its end, its output thrown away; its exit status, or
    /// -1 when it could not start or a signal ended it.
    @discardableResult
    public static func status(_ executable: String, _ arguments: [String]) -> Int32 {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        return (try? run(executable, arguments, in: scratch))?.status ?? -1
    }

    /// The descriptors open in this process now (/proc/self/fd).
    private static func openDescriptors() -> [CInt] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { CInt($0) }
    }
}

/// A child process ``ChildProcess/start(_:_:input:environment:in:)`` started.
public final class RunningChild: @unchecked Sendable {
    /// The files of its standard input, output and error.
    struct Files {
        var input: String
        var output: String
        var error: String

        func remove() {
            for path in [input, output, error] { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// The child's process ID.
    public let pid: pid_t
    private let executable: String
    private let files: Files
    /// How it ended, once `wait4` reported it (guarded by `lock`).
    private var ended: Execution?
    /// The largest `VmHWM` read so far, in bytes (guarded by `lock`).
    private var sampledPeak = 0
    private let lock = NSLock()

    init(pid: pid_t, executable: String, files: Files) {
        self.pid = pid
        self.executable = executable
        self.files = files
    }

    /// A child nobody waited for (a test that stopped early) is killed and reaped.
    deinit {
        if ended == nil {
            send(SIGKILL)
            _ = reap(blocking: true)
        }
    }

    /// Sends `signal` (`SIGKILL`, `SIGCONT`, …) to the child.
    public func send(_ signal: Int32) { _ = kill(pid, signal) }

    /// What the child has written to its standard output so far.
    public var standardOutputSoFar: Data { FileManager.default.contents(atPath: files.output) ?? Data() }

    /// Whether the child has not ended yet (an ended child is reaped: ``wait()`` returns at once).
    public var isRunning: Bool {
        lock.withLock { ended == nil && !reap(blocking: false) }
    }

    /// Waits for the child to end, reading its peak memory every millisecond meanwhile; how it
    /// ended and what it wrote. Its files are removed.
    public func wait() throws -> Execution {
        while true {
            let done = try lock.withLock { () throws -> Execution? in
                if let ended { return ended }
                if reap(blocking: false) { return ended }
                guard errno == 0 || errno == EAGAIN || errno == EINTR else {
                    throw ChildProcessError(
                        description: "wait4 failed for \(executable): \(String(cString: strerror(errno)))")
                }
                return nil
            }
            if let done { return done }
            usleep(1000)
        }
    }

    /// The child's `VmHWM` now, in bytes; 0 when it cannot be read (the child has ended).
    /// Called with `lock` held and the child not reaped, so `pid` is still the child's.
    private func highWaterMark() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// `wait4` for the child (with `WNOHANG` unless `blocking`); records how it ended and
    /// returns whether it has, reading its peak memory first while it runs. Called with `lock`
    /// held; `errno` is 0 when the child merely has not ended.
    private func reap(blocking: Bool) -> Bool {
        var status: CInt = 0
        var usage = rusage()
        var result: pid_t
        sampledPeak = max(sampledPeak, highWaterMark())
        errno = 0
        repeat { result = wait4(pid, &status, blocking ? 0 : WNOHANG, &usage) } while result < 0 && errno == EINTR
        guard result == pid else { return false }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Glibc does not import as functions.
        let signal = status & 0x7f
        ended = Execution(
            status: signal == 0 ? (status >> 8) & 0xff : -1, signal: signal == 0 ? nil : signal,
            standardOutput: FileManager.default.contents(atPath: files.output) ?? Data(),
            standardError: FileManager.default.contents(atPath: files.error) ?? Data(),
            peakResidentBytes: sampledPeak > 0 ? sampledPeak : usage.ru_maxrss * 1024)
        files.remove()
        return true
    }
}
