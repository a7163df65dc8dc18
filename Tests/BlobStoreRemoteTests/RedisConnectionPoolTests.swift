import BlobStore
import Foundation
import Synchronization
import Testing

@testable import BlobStoreRemote

/// The bounded pool of connections to one server, against a real redis-server.
@Suite("Redis connection pool")
struct RedisConnectionPoolTests {
    /// The clients connected to the server now (`INFO clients` connected_clients), asked on
    /// `connection` (which counts itself).
    private func connectedClients(_ connection: RedisConnection) throws -> Int {
        guard case .bulk(let data?) = try connection.run("INFO", "clients") else { return -1 }
        let prefix = "connected_clients:"
        let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first {
            $0.hasPrefix(prefix)
        }
        return line.flatMap { Int($0.dropFirst(prefix.count)) } ?? -1
    }

    @Test func operationsWaitForOneOfTheOpenConnections() throws {
        let redis = try TestServers.startRedis()
        defer { redis.stop() }
        let pool = RedisConnectionPool(
            RedisServer(host: "127.0.0.1", port: redis.port), timeouts: testTimeouts, maximumOpen: 3, maximumIdle: 2,
            resolver: .system)
        // The server's own count, sampled while the operations run: the pool's connections
        // plus the sampling one. (A count of connections received would also count a
        // connection the pool replaced after a timeout on a loaded machine, never more than 3
        // open at once.)
        let monitor = try rawRedis(redis)
        let peak = Mutex(0)
        let sampling = Atomic(true)
        let sampled = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { sampled.signal() }
            while sampling.load(ordering: .relaxed) {
                let connected = (try? connectedClients(monitor)) ?? -1
                peak.withLock { $0 = max($0, connected - 1) }
                usleep(5_000)
            }
        }
        let failures = Mutex(0)
        // Each BLPOP holds its connection for 100 ms on the server: 12 threads through 3
        // connections take 4 rounds.
        let group = DispatchGroup()
        let start = ContinuousClock.now
        for _ in 0..<12 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    try pool.perform(
                        ["BLPOP", "nothing", "0.1"].map { Data($0.utf8) },
                        limits: RESPLimits(maximumBulk: 64, maximumArrayBytes: 1 << 10)
                    ) { reply, _ in
                        guard reply == .array(nil) else { throw BlobStoreError(.io, "unexpected \(reply)") }
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        group.wait()
        let elapsed = ContinuousClock.now - start
        sampling.store(false, ordering: .relaxed)
        sampled.wait()
        #expect(failures.withLock { $0 } == 0)
        let most = peak.withLock { $0 }
        #expect((1...3).contains(most), "at most 3 connections open at once, \(most) seen")
        #expect(pool.idleConnections == 2)
        #expect(elapsed >= .milliseconds(390))
    }

    @Test func anOperationThatFindsEveryConnectionBusyGivesUpAfterTheOperationTimeout() throws {
        let redis = try TestServers.startRedis()
        defer { redis.stop() }
        let timeouts = RemoteTimeouts(connect: .milliseconds(200), operation: .milliseconds(300))
        let pool = RedisConnectionPool(
            RedisServer(host: "127.0.0.1", port: redis.port), timeouts: timeouts, maximumOpen: 1, resolver: .system)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? pool.perform([Data("PING".utf8)], limits: RESPLimits(maximumBulk: 0)) { _, _ in
                holding.signal()
                _ = release.wait(timeout: .now() + 5)
            }
        }
        holding.wait()
        let start = ContinuousClock.now
        #expect {
            try pool.perform([Data("PING".utf8)], limits: RESPLimits(maximumBulk: 0)) { _, _ in }
        } throws: { error in
            (error as? BlobStoreError)?.message.contains("all 1 connections were busy") == true
        }
        #expect(ContinuousClock.now - start >= .milliseconds(290))
        release.signal()
    }
}
