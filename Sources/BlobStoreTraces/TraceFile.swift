import Glibc

/// Reading and writing a whole trace file with plain system calls (no Foundation), each retried
/// on `EINTR`; a failure is a ``TraceError`` with the path and `strerror`'s text.
enum TraceFile {
    /// The file's bytes. // man 2 open, man 2 read
    static func read(path: String) throws(TraceError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", path, errno, "check the path") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure("read", path, errno, "check that it is a readable file") }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Replaces the file's contents with `bytes` (created with mode 0644 when missing).
    /// // man 2 open, man 2 write
    static func write(_ bytes: [UInt8], path: String) throws(TraceError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("create", path, errno, "check the directory and its rights") }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                let code = errno
                close(descriptor)
                throw failure("write", path, code, "check the free space")
            }
            written += count
        }
        guard close(descriptor) == 0 else { throw failure("write", path, errno, "check the free space") }
    }

    private static func failure(_ action: String, _ path: String, _ code: Int32, _ advice: String) -> TraceError {
        TraceError(.io, "cannot \(action) the trace file '\(path)': \(String(cString: strerror(code))); \(advice)")
    }
}
