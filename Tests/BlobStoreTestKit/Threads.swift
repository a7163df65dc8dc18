import Foundation

/// Runs `body(0)` … `body(count - 1)` each on a thread of its own and returns when all have
/// returned.
///
/// Unlike `DispatchQueue.concurrentPerform`, which may run its iterations one after another when
/// the machine is busy (as it is while the whole suite runs), every body here runs at the same
/// time as the others, so bodies may wait for one another.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        Thread.detachNewThread {
            body(index)
            finished.leave()
        }
    }
    finished.wait()
}
