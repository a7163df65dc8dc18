/// Bytes of a file mapped read-only (``Syscalls/mapReadOnly(_:length:)``), unmapped when the last
/// reference goes; or, for tests and empty files, bytes held in memory. The file may be closed
/// and unlinked while it is mapped. Whoever maps a file must make sure nothing truncates it
/// (docs/design.md, "Mapped files").
final class FileMapping: Sendable {
    nonisolated(unsafe) let bytes: UnsafeRawBufferPointer
    /// Memory this instance allocated, or `nil` for a mapping.
    nonisolated(unsafe) private let allocation: UnsafeMutableRawPointer?

    /// Maps the first `length` bytes of `fd` (its size, as `fstat` showed it).
    convenience init(_ fd: FileDescriptor, length: Int) throws {
        if length == 0 {
            self.init(copying: [])
        } else {
            self.init(
                mapped: UnsafeRawBufferPointer(start: try Syscalls.mapReadOnly(fd, length: length), count: length))
        }
    }

    private init(mapped: UnsafeRawBufferPointer) {
        bytes = mapped
        allocation = nil
    }

    /// A copy of `contents` in memory.
    init(copying contents: [UInt8]) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(contents.count, 1), alignment: 16)
        contents.withUnsafeBytes {
            buffer.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(buffer), byteCount: $0.count)
        }
        bytes = UnsafeRawBufferPointer(start: buffer, count: contents.count)
        allocation = buffer
    }

    deinit {
        if let allocation {
            allocation.deallocate()
        } else {
            Syscalls.unmap(bytes.baseAddress!, length: bytes.count)
        }
    }
}
