import Dispatch
import Glibc
import Synchronization

// MARK: - Making a recipe: cut, hashed and placed at once

extension ChunkRecipe {
    /// The recipe of `bytes` (at least one byte) cut with `parameters`, made by `max(2, workers)`
    /// tasks on as many threads as are free (``make(of:_:workers:digest:placing:)``, placing nothing).
    package static func make(
        of bytes: UnsafeRawBufferPointer, _ parameters: ChunkingParameters, workers: Int = 1,
        digest known: SHA256Digest? = nil
    ) -> ChunkRecipe {
        make(of: bytes, parameters, workers: workers, digest: known) { (_, _, _) throws(Never) in }
    }

    /// The recipe of `bytes` (at least one byte) cut with `parameters`, each chunk handed to
    /// `place` as soon as it and every chunk before it are hashed: a put writes the first chunks
    /// while later ones are still being cut and hashed.
    ///
    /// `max(2, workers)` tasks run on as many threads as are free. One cuts the value
    /// ``cutPiece`` bytes at a time, publishing each piece's chunks; one hashes the whole value
    /// meanwhile (unless the caller knows its `digest`: it hashed the bytes as it wrote them);
    /// then every task hashes chunks, each taking the next not yet taken (waiting, when it is not
    /// cut yet, for the cutting task, which is running). Cutting is faster than hashing, so on two
    /// cores a recipe costs about half of cutting and hashing twice one after the other.
    ///
    /// `place` gets the chunks in order, one at a time, from whichever task finds the next one
    /// hashed while no other is placing: no thread waits for it. The first error it throws ends
    /// the placing, the chunk hashing and the cutting (at its next piece; the whole value's hash
    /// runs to its end); it is thrown once every task has stopped.
    package static func make<Failure: Error>(
        of bytes: UnsafeRawBufferPointer, _ parameters: ChunkingParameters, workers: Int = 1,
        digest known: SHA256Digest? = nil,
        placing place: (_ index: Int, _ chunk: Chunk, _ bytes: UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) -> ChunkRecipe {
        precondition(!bytes.isEmpty, "a recipe has at least one chunk")
        nonisolated(unsafe) let bytes = bytes
        let cuts = PublishedCuts(bytes, parameters)
        defer { cuts.deallocate() }
        nonisolated(unsafe) var digest = known
        nonisolated(unsafe) let chunkDigests = UnsafeMutableBufferPointer<SHA256Digest>.allocate(
            capacity: cuts.capacity)
        defer { chunkDigests.deallocate() }
        let placing = Mutex(InOrder<Failure>(count: cuts.capacity))
        let stop = Atomic<Bool>(false)
        let next = Atomic<Int>(0)
        let tasks = max(2, workers)
        // Roles go to tasks as they start, the cutting one first: it is running, so a task that
        // waits for a cut never waits for a task not started (whatever order, or however few
        // threads, the tasks get).
        let roles = Atomic<Int>(0)
        withoutActuallyEscaping(place) { place in
            nonisolated(unsafe) let place = place
            DispatchQueue.concurrentPerform(iterations: tasks) { _ in
                let role = roles.add(1, ordering: .relaxed).oldValue
                if role == 0 {
                    cuts.cut { stop.load(ordering: .relaxed) }
                } else if role == 1 && known == nil {
                    digest = SHA256Hasher.hash(bytes)
                }
                while !stop.load(ordering: .relaxed) {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard let range = cuts.range(of: index) else { return }
                    let piece = UnsafeRawBufferPointer(rebasing: bytes[range])
                    (chunkDigests.baseAddress! + index).initialize(to: SHA256Hasher.hash(piece))
                    var batch = placing.withLock { $0.hashed(index) }
                    while let indices = batch {
                        var failure: Failure? = nil
                        for index in indices {
                            let range = cuts.range(of: index)!
                            let chunk = Chunk(digest: chunkDigests[index], length: range.count)
                            do throws(Failure) {
                                try place(index, chunk, UnsafeRawBufferPointer(rebasing: bytes[range]))
                            } catch {
                                failure = error
                                stop.store(true, ordering: .relaxed)
                                break
                            }
                        }
                        batch = placing.withLock { $0.placed(indices, failure: failure) }
                    }
                }
            }
        }
        if let failure = placing.withLock({ $0.failure }) { throw failure }
        let count = cuts.count
        precondition(placing.withLock { $0.next } == count, "every chunk placed")
        let chunks = (0..<count).map { Chunk(digest: chunkDigests[$0], length: cuts.range(of: $0)!.count) }
        return ChunkRecipe(parameters: parameters, digest: digest!, chunks: chunks)
    }

    /// The bytes the cutting task cuts before it publishes the chunks that end in them.
    static let cutPiece = 1 << 20

    /// Where the chunks of a value begin and end, cut by one task and read by others while it
    /// cuts: chunk `i` runs from `offsets[i]` to `offsets[i + 1]`, both written before ``cut``
    /// counts it (a release store; readers load it acquiring).
    private final class PublishedCuts: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
        let parameters: ChunkingParameters
        /// The most chunks the value can have: all but the last are at least the minimum.
        let capacity: Int
        private let offsets: UnsafeMutableBufferPointer<Int>
        private let published = Atomic<Int>(0)
        private let finished = Atomic<Bool>(false)

        init(_ bytes: UnsafeRawBufferPointer, _ parameters: ChunkingParameters) {
            self.bytes = bytes
            self.parameters = parameters
            capacity = bytes.count / parameters.minimum + 1
            offsets = .allocate(capacity: capacity + 1)
            offsets[0] = 0
        }

        func deallocate() { offsets.deallocate() }

        /// The chunks cut so far; all of them once ``cut(until:)`` has returned unstopped.
        var count: Int { published.load(ordering: .acquiring) }

        /// Cuts the whole value, publishing its chunks a piece at a time, or until `stopped`.
        func cut(until stopped: () -> Bool) {
            var chunker = ContentDefinedChunker(parameters)
            var lengths: [Int] = []
            var (count, end, start) = (0, 0, 0)
            func publish() {
                for length in lengths {
                    end += length
                    count += 1
                    offsets[count] = end
                }
                lengths.removeAll(keepingCapacity: true)
                published.store(count, ordering: .releasing)
            }
            while start < bytes.count {
                if stopped() { break }
                let stop = min(bytes.count, start + ChunkRecipe.cutPiece)
                chunker.append(UnsafeRawBufferPointer(rebasing: bytes[start..<stop]), lengths: &lengths)
                publish()
                start = stop
            }
            if start == bytes.count, let last = chunker.finish() { lengths.append(last) }
            publish()
            finished.store(true, ordering: .releasing)
        }

        /// The bytes of chunk `index`, once it is cut (waiting meanwhile); `nil` when the value
        /// has fewer chunks.
        func range(of index: Int) -> Range<Int>? {
            while true {
                let finished = finished.load(ordering: .acquiring)
                if index < published.load(ordering: .acquiring) { return offsets[index]..<offsets[index + 1] }
                if finished { return nil }
                // A piece takes the cutting task a few hundred microseconds.
                usleep(50)
            }
        }
    }

    /// Which chunks are hashed and which placed, under a mutex: the task that hashed the next
    /// chunk to place, when no other is placing, takes every hashed chunk from there on.
    private struct InOrder<Failure: Error>: ~Copyable {
        var isHashed: [Bool]
        /// The first chunk not placed yet.
        var next = 0
        var isPlacing = false
        var failure: Failure? = nil

        init(count: Int) { isHashed = Array(repeating: false, count: count) }

        /// Notes chunk `index` hashed; the chunks for the caller to place, if any.
        mutating func hashed(_ index: Int) -> Range<Int>? {
            isHashed[index] = true
            return take()
        }

        /// Notes `indices` placed (or the placing failed); the chunks to place next, if any.
        mutating func placed(_ indices: Range<Int>, failure: Failure?) -> Range<Int>? {
            isPlacing = false
            next = indices.upperBound
            if let failure {
                self.failure = failure
                return nil
            }
            return take()
        }

        private mutating func take() -> Range<Int>? {
            guard !isPlacing, failure == nil else { return nil }
            var end = next
            while end < isHashed.count && isHashed[end] { end += 1 }
            guard end > next else { return nil }
            isPlacing = true
            return next..<end
        }
    }
}
