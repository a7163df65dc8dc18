import BlobStore
import BlobStoreNet
import BlobStoreTestKit
import Foundation
import Glibc
import Synchronization
import Testing

@testable import BlobStoreRemote

/// A resolver whose lookups stall until ``release()`` (or 10 s), counting how many it started:
/// a DNS server that does not answer.
final class StalledResolver: Sendable {
    /// What the lookups share with the test.
    private final class Gate: Sendable {
        let released = DispatchSemaphore(value: 0)
        let started = Mutex(0)
    }

    private let gate = Gate()
    let resolver: NameResolver

    init(answer: Result<[SocketAddress], NameResolver.LookupFailure> = .failure(.init(reason: "stalled"))) {
        let gate = gate
        resolver = NameResolver { _, _ in
            gate.started.withLock { $0 += 1 }
            if gate.released.wait(timeout: .now() + 10) == .success { gate.released.signal() }
            return answer
        }
    }

    var lookups: Int { gate.started.withLock { $0 } }

    /// Lets every stalled lookup, and every later one, finish.
    func release() { gate.released.signal() }
}

@Suite("Bounded name resolution")
struct NameResolutionTests {
    @Test func stalledLookupFailsWithinTheResolutionTimeout() throws {
        let stalled = StalledResolver()
        defer { stalled.release() }
        let start = ContinuousClock.now
        #expect {
            _ = try SocketSyscalls.connect(
                host: "stalls.test", port: 6379, timeout: .milliseconds(100), resolutionTimeout: .milliseconds(200),
                resolver: stalled.resolver, server: .remote("test"))
        } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .remote && error.errno == ETIMEDOUT
                && error.message.contains("resolving 'stalls.test'")
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(190))
        #expect(elapsed < .milliseconds(700))
    }

    @Test func callersOfAStalledNameJoinOneLookup() throws {
        let stalled = StalledResolver()
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                _ = try stalled.resolver.resolve(
                    host: "stalls.test", port: 80, timeout: .milliseconds(150), server: .remote("test"))
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 6)
        #expect(stalled.lookups == 1, "one thread per name, not one per caller")
        stalled.release()
        // Once the lookup ended, the next caller starts a new one and waits for its answer.
        usleep(50_000)
        #expect(throws: BlobStoreError.self) {
            _ = try stalled.resolver.resolve(
                host: "stalls.test", port: 80, timeout: .seconds(2), server: .remote("test"))
        }
        #expect(stalled.lookups == 2)
    }

    @Test func lookupThatAnswersInTimeGivesItsAddresses() throws {
        let (listener, port) = LocalPorts.listening()
        defer { close(listener) }
        let loopback = try SocketSyscalls.addresses("127.0.0.1", port, numericOnly: true).get()
        let answering = StalledResolver(answer: .success(loopback))
        answering.release()
        let fd = try SocketSyscalls.connect(
            host: "cache.test", port: port, timeout: .seconds(1), resolver: answering.resolver, server: .remote("test"))
        SocketSyscalls.close(fd)
        #expect(answering.lookups == 1)
    }

    @Test func numericAddressesAndTheSystemResolverNeedNoLookupThread() throws {
        let stalled = StalledResolver()
        defer { stalled.release() }
        #expect(
            try stalled.resolver.resolve(host: "127.0.0.1", port: 1, timeout: .zero, server: .remote("test")).count == 1
        )
        #expect(try stalled.resolver.resolve(host: "::1", port: 1, timeout: .zero, server: .remote("test")).count == 1)
        #expect(stalled.lookups == 0)
        // "localhost" goes through the lookup thread (it is a name) and /etc/hosts answers it.
        let (listener, port) = LocalPorts.listening()
        defer { close(listener) }
        let fd = try SocketSyscalls.connect(
            host: "localhost", port: port, timeout: .seconds(1), server: .remote("test"))
        SocketSyscalls.close(fd)
    }

    @Test func stalledDNSDoesNotHangATieredOperation() throws {
        let stalled = StalledResolver()
        defer { stalled.release() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let timeouts = RemoteTimeouts(
            connect: .milliseconds(100), operation: .seconds(5), nameResolution: .milliseconds(300))
        let remote = try RedisBackend(
            shards: [RedisServer(host: "cache.stalls.test")], prefix: "blobstore", timeToLive: nil,
            maximumValueSize: 1 << 20, timeouts: timeouts, resolver: stalled.resolver)
        let local = try directory.store("a")
        let store = TieredStore(local: local, remote: remote)
        let elapsed = try ContinuousClock().measure {
            try store.put(Data("v".utf8), for: "k")
        }
        #expect(elapsed < .milliseconds(900))
        #expect(store.stats.errors == 1)
        #expect(store.lastError?.errno == ETIMEDOUT)
        #expect(try local.value(for: "k") == Data("v".utf8))
    }
}
