import BlobStore
import Foundation
import Synchronization
import Testing

@testable import BlobStoreRemote

/// The bounded pool of connections to one server, against a real redis-server.
@Suite("Redis connection pool")
struct RedisConnectionPoolTests {
    /// `INFO stats` total_connections_received.
    private func connectionsReceived(_ redis: ServerProcess) throws -> Int {
        guard case .bulk(let data?) = try rawRedis(redis).run("INFO", "stats") else { return -1 }
        let prefix = "total_connections_received:"
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
        let before = try connectionsReceived(redis)
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
        #expect(failures.withLock { $0 } == 0)
        // Two raw connections: `before` and the one below.
        #expect(try connectionsReceived(redis) - before - 2 <= 3, "at most 3 connections")
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
