import Dispatch
import Foundation
import Glibc
import Synchronization

/// A chunked value as the store found it under its mutex: its recipe and where each of the
/// chunks a read wants is (all of them, or those that hold a range). The bytes are read after
/// the mutex is let go (``read(_:verify:content:)``), as a packed value's needle is: each needle
/// holds its pack's mapping.
struct ChunkedRead: Sendable {
    /// Where one chunk's bytes are.
    enum Source: Sendable {
        case needle(PackedRead)
        /// A file of its own (a chunk larger than a needle holds).
        case loose
        /// No blob the index knows (a store damaged under it).
        case missing
    }

    let recipe: ChunkRecipe
    /// The chunks located, by their index in the recipe.
    let located: Range<Int>
    /// One per chunk of ``located``, in the recipe's order.
    let sources: [Source]

    /// The chunks that hold `range` of the value (all of them when `nil`).
    static func chunks(of recipe: ChunkRecipe, covering range: Range<Int>?) -> Range<Int> {
        range.map { recipe.chunkIndices(covering: $0.clamped(to: 0..<recipe.length)) } ?? 0..<recipe.chunks.count
    }

    /// Whether a chunk's needle was not found (its pack gone or short) or the index knows no
    /// such chunk: a repack this process has not seen may have moved it.
    var isMissingAChunk: Bool {
        sources.contains {
            switch $0 {
            case .missing, .needle(.missing): true
            case .needle, .loose: false
            }
        }
    }

    /// Threads that copy and hash one value's chunks at once: every core, up to eight.
    static let workers = min(8, max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// The bytes of the chunks in `chunks` (within ``located``), one after another: each chunk is copied into place
    /// and (when `verify`) hashed against its recipe by the next free one of up to ``workers``
    /// threads, while it is still in the cache. A chunk that fails gives `corrupt`, one that
    /// cannot be found `missing` (the first in the recipe's order wins); no byte of a read that
    /// fails is handed out.
    func read(_ chunks: Range<Int>, verify: Bool, content: ContentStore) -> ContentStore.ReadResult {
        precondition(chunks.clamped(to: located) == chunks, "chunks that were located")
        let offsets = recipe.offsets
        let base = offsets[chunks.lowerBound]
        let count = offsets[chunks.upperBound] - base
        guard count > 0, let memory = Self.allocate(count) else {
            return count == 0 ? .found(Data()) : .corrupt(reason: "no memory for \(count) bytes")
        }
        nonisolated(unsafe) let buffer = UnsafeMutableRawBufferPointer(start: memory, count: count)
        let next = Atomic<Int>(chunks.lowerBound)
        let failure = Mutex<(chunk: Int, result: ContentStore.ReadResult)?>(nil)
        DispatchQueue.concurrentPerform(iterations: min(Self.workers, chunks.count)) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < chunks.upperBound else { return }
                let place = UnsafeMutableRawBufferPointer(
                    rebasing: buffer[offsets[index] - base..<offsets[index + 1] - base])
                guard let miss = fill(place, chunk: index, verify: verify, content: content) else { continue }
                failure.withLock { if $0 == nil || $0!.chunk > index { $0 = (index, miss) } }
            }
        }
        if let (_, result) = failure.withLock({ $0 }) {
            Self.free(memory, count)
            return result
        }
        return .found(Data(bytesNoCopy: memory, count: count, deallocator: Self.deallocator(count)))
    }

    /// The bytes of `range` of the value (its chunks among those located): the chunks that hold
    /// it read as ``read(_:verify:content:)`` reads them, then cut to the range.
    func read(bytes range: Range<Int>, verify: Bool, content: ContentStore) -> ContentStore.ReadResult {
        guard !range.isEmpty else { return .found(Data()) }
        let chunks = Self.chunks(of: recipe, covering: range)
        let result = read(chunks, verify: verify, content: content)
        guard case .found(let data) = result else { return result }
        let base = recipe.offsets[chunks.lowerBound]
        guard base != range.lowerBound || data.count != range.count else { return result }
        return .found(data.subdata(in: range.lowerBound - base..<range.upperBound - base))
    }

    /// From this size on, a read's buffer is mapped with huge pages (``Syscalls/allocateLarge(_:)``):
    /// filling a fresh buffer of 256 MiB otherwise costs 65,536 page faults. Below it `malloc`
    /// serves, which reuses freed memory up to its largest mapping threshold (32 MiB in glibc):
    /// no faults at all.
    static let largeBuffer = 32 << 20

    private static func allocate(_ count: Int) -> UnsafeMutableRawPointer? {
        count >= largeBuffer ? Syscalls.allocateLarge(count) : malloc(count)
    }

    private static func free(_ memory: UnsafeMutableRawPointer, _ count: Int) {
        if count >= largeBuffer { Syscalls.unmap(memory, length: count) } else { Glibc.free(memory) }
    }

    private static func deallocator(_ count: Int) -> Data.Deallocator {
        count >= largeBuffer ? .custom({ address, length in Syscalls.unmap(address, length: length) }) : .free
    }

    /// The chunks located, in windows of at most ``window`` bytes each (a single larger chunk
    /// is a window of its own), in order: what a read that keeps memory flat reads at a time.
    var windows: [Range<Int>] {
        var windows: [Range<Int>] = []
        var start = located.lowerBound
        while start < located.upperBound {
            var end = start + 1
            while end < located.upperBound, recipe.offsets[end + 1] - recipe.offsets[start] <= Self.window {
                end += 1
            }
            windows.append(start..<end)
            start = end
        }
        return windows
    }

    /// Reads the chunks located a window at a time (``windows``), each as
    /// ``read(_:verify:content:)`` does, and hands each window's bytes to `body` once they are
    /// checked; memory stays at one window whatever the value's size. Returns `nil` when every
    /// window was read, else the first miss (`body` is not called again after it).
    func forEachWindow(
        verify: Bool, content: ContentStore, _ body: (Data) throws -> Void
    ) rethrows -> ContentStore.ReadResult? {
        for window in windows {
            let result = read(window, verify: verify, content: content)
            guard case .found(let bytes) = result else { return result }
            try body(bytes)
        }
        return nil
    }

    /// ``forEachWindow(verify:content:_:)``, keeping nothing: `nil` when every chunk located is
    /// sound, else the first miss.
    func check(verify: Bool, content: ContentStore) -> ContentStore.ReadResult? {
        forEachWindow(verify: verify, content: content) { _ in }
    }

    /// The most bytes a window holds (``windows``).
    static let window = 16 << 20

    /// Copies chunk `index` into `place` and checks it; `nil` when it is sound, else the miss.
    private func fill(
        _ place: UnsafeMutableRawBufferPointer, chunk index: Int, verify: Bool, content: ContentStore
    ) -> ContentStore.ReadResult? {
        let chunk = recipe.chunks[index]
        switch sources[index - located.lowerBound] {
        case .needle(let needle):
            if let miss = needle.copy(into: place) { return miss }
        case .loose:
            let result =
                (try? content.read(chunk.digest, expectedSize: UInt64(chunk.length), verify: false)) ?? .missing
            guard case .found(let data) = result else { return result }
            guard data.count == place.count else { return .corrupt(reason: "a chunk of another size") }
            data.withUnsafeBytes { place.copyMemory(from: $0) }
        case .missing:
            return .missing
        }
        guard verify, SHA256Hasher.hash(UnsafeRawBufferPointer(place)) != chunk.digest else { return nil }
        return .corrupt(reason: "chunk \(index) does not hash to its digest")
    }
}
