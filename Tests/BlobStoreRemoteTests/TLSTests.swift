import BlobStore
import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStoreRemote

/// `https://` and `rediss://` against nginx and redis-server processes started by each test with
/// certificates of a test CA made for it (scripts/test-certificates.sh): the round trip when the
/// CA is trusted, and every certificate that must be refused — signed by another CA, expired,
/// naming another host — refused as a remote failure: the backend throws a remote error that says
/// why, and a tiered store counts it and goes on locally.
@Suite("TLS")
struct TLSTests {
    /// Generous: the machine is shared, and nothing here measures time.
    private let timeouts = RemoteTimeouts(connect: .seconds(2), operation: .seconds(10))
    private let digest = SHA256Hasher.hash(Array("probe".utf8))

    /// A certificate that must be refused, the CA the client trusts, and the reasons OpenSSL may
    /// give (a server that sends the test CA with its certificate, as redis-server does, makes it
    /// "self-signed certificate in certificate chain").
    struct Refusal: CustomTestStringConvertible, Sendable {
        let certificate: TestCertificates.Name
        let trustsTestCA: Bool
        let reasons: [String]
        var testDescription: String { "\(certificate.rawValue), test CA trusted: \(trustsTestCA)" }
    }

    /// What OpenSSL says of a certificate no trusted CA signed.
    static let untrusted = ["unable to get local issuer certificate", "self-signed certificate in certificate chain"]

    static let refusals = [
        Refusal(certificate: .server, trustsTestCA: false, reasons: untrusted),
        Refusal(certificate: .expired, trustsTestCA: true, reasons: ["certificate has expired"]),
        Refusal(certificate: .wrongHost, trustsTestCA: true, reasons: ["IP address mismatch"]),
    ]

    // MARK: - HTTPS

    @Test func httpsRoundTripWithTheTestCA() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let nginx = try TestServers.startNginxTLS(certificates, certificate: .server)
        defer { nginx.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = try RemoteURL.backend(
            "https://127.0.0.1:\(nginx.port)/cache", timeouts: timeouts, tls: RemoteTLS(caFile: certificates.caFile))
        #expect(remote.name == "https://127.0.0.1:\(nginx.port)/cache")
        // Several MiB: many TLS records each way.
        let value = sampleBytes(3 << 20, seed: 9)
        let writer = TieredStore(local: try directory.store("a"), remote: remote)
        let stored = try writer.put(value, for: "k")
        #expect(writer.stats.uploads == 1, "\(String(describing: writer.lastError))")
        #expect(writer.stats.errors == 0)
        #expect(FileManager.default.contents(atPath: nginx.directory + "/root/cache/cas/" + stored.hex) == value)
        let reader = TieredStore(local: try directory.store("b"), remote: remote)
        #expect(try reader.value(for: "k") == value)
        #expect(reader.stats.hits == 1)
        #expect(reader.stats.errors == 0, "\(String(describing: reader.lastError))")
        let more = TemporaryDirectory()
        defer { more.cleanup() }
        try checkConcurrentRoundTrip(remote, count: 8, in: more)
    }

    @Test func httpsSendsTheHostAsServerNameAndChecksTheName() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        // Only a client that sends the server name "localhost" gets the certificate for it.
        let nginx = try TestServers.startNginxTLS(certificates, certificate: .wrongHost, sniCertificate: .server)
        defer { nginx.stop() }
        let tls = RemoteTLS(caFile: certificates.caFile)
        let byName = try HTTPCacheBackend(
            baseURL: URL(string: "https://localhost:\(nginx.port)/cache")!, timeouts: timeouts, tls: tls)
        try byName.putBlob(Data("probe".utf8), digest: digest)
        #expect(try byName.blob(digest, maximumSize: 100) == Data("probe".utf8))
        // An IP address is sent no server name: the default server's certificate, for another host.
        let byAddress = try HTTPCacheBackend(
            baseURL: URL(string: "https://127.0.0.1:\(nginx.port)/cache")!, timeouts: timeouts, tls: tls)
        #expect {
            _ = try byAddress.containsBlob(digest)
        } throws: { error in
            (error as? BlobStoreError)?.code == .remote
                && (error as? BlobStoreError)?.message.contains("IP address mismatch") == true
        }
    }

    @Test(arguments: refusals) func httpsRefusesTheCertificate(_ refusal: Refusal) throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let nginx = try TestServers.startNginxTLS(certificates, certificate: refusal.certificate)
        defer { nginx.stop() }
        let tls = RemoteTLS(caFile: refusal.trustsTestCA ? certificates.caFile : certificates.otherCAFile)
        let remote = try HTTPCacheBackend(
            baseURL: URL(string: "https://127.0.0.1:\(nginx.port)/cache")!, timeouts: timeouts, tls: tls)
        try expectRefused(remote, because: refusal.reasons)
        // Nothing reached nginx: the handshake failed before a request was sent.
        #expect(nginx.loggedRequests().isEmpty)
    }

    @Test func httpsWithoutACAFileTrustsOnlyTheSystemCAs() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let nginx = try TestServers.startNginxTLS(certificates, certificate: .server)
        defer { nginx.stop() }
        let remote = try HTTPCacheBackend(
            baseURL: URL(string: "https://127.0.0.1:\(nginx.port)/cache")!, timeouts: timeouts)
        try expectRefused(remote, because: Self.untrusted)
    }

    @Test func handshakeWithAServerThatNeverAnswersTimesOut() throws {
        let (fd, port) = LocalPorts.listening()  // accepts, never answers
        defer { close(fd) }
        let remote = try HTTPCacheBackend(
            baseURL: URL(string: "https://127.0.0.1:\(port)")!,
            timeouts: RemoteTimeouts(connect: .seconds(2), operation: .milliseconds(300)))
        #expect {
            _ = try remote.containsBlob(digest)
        } throws: { error in
            let error = error as? BlobStoreError
            return error?.code == .remote && error?.errno == ETIMEDOUT
                && error?.message.contains("TLS handshake took longer than") == true
        }
    }

    @Test func unreadableCAFileIsRefusedWhenTheBackendIsMade() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let notPEM = directory.child("not-a-ca.pem")
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: notPEM))
        for file in [directory.child("missing.pem"), notPEM] {
            #expect {
                _ = try RemoteURL.backend("https://127.0.0.1:1/cache", tls: RemoteTLS(caFile: file))
            } throws: { error in
                (error as? BlobStoreError)?.code == .invalidArgument
                    && (error as? BlobStoreError)?.message.contains("cannot be read as PEM certificates") == true
            }
            #expect(throws: BlobStoreError.self) {
                _ = try RemoteURL.backend("rediss://127.0.0.1:1", tls: RemoteTLS(caFile: file))
            }
        }
        // A plain remote does not read the CA file.
        _ = try RemoteURL.backend("redis://127.0.0.1:1", tls: RemoteTLS(caFile: directory.child("missing.pem")))
    }

    // MARK: - Redis

    @Test func redissRoundTripWithTheTestCA() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let redis = try TestServers.startRedisTLS(certificates, certificate: .server)
        defer { redis.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = try RemoteURL.backend(
            "rediss://127.0.0.1:\(redis.port)", timeouts: timeouts, tls: RemoteTLS(caFile: certificates.caFile))
        let redisBackend = try #require(remote as? RedisBackend)
        #expect(redisBackend.shards.map(\.usesTLS) == [true])
        #expect(remote.name == "rediss://127.0.0.1:\(redis.port)")
        let value = sampleBytes(1 << 20, seed: 10)
        let writer = TieredStore(local: try directory.store("a"), remote: remote)
        try writer.put(value, for: "k")
        #expect(writer.stats.uploads == 1, "\(String(describing: writer.lastError))")
        let reader = TieredStore(local: try directory.store("b"), remote: remote)
        #expect(try reader.value(for: "k") == value)
        #expect(reader.stats.hits == 1)
        #expect(reader.stats.errors == 0, "\(String(describing: reader.lastError))")
        // Pooled TLS connections, reused by many operations at once.
        let more = TemporaryDirectory()
        defer { more.cleanup() }
        try checkConcurrentRoundTrip(remote, count: 32, in: more)
    }

    @Test(arguments: refusals) func redissRefusesTheCertificate(_ refusal: Refusal) throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let redis = try TestServers.startRedisTLS(certificates, certificate: refusal.certificate)
        defer { redis.stop() }
        let tls = RemoteTLS(caFile: refusal.trustsTestCA ? certificates.caFile : certificates.otherCAFile)
        let remote = try RemoteURL.backend("rediss://127.0.0.1:\(redis.port)", timeouts: timeouts, tls: tls)
        try expectRefused(remote, because: refusal.reasons)
    }

    @Test func plainRedisClientOnATLSPortIsARemoteError() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let redis = try TestServers.startRedisTLS(certificates, certificate: .server)
        defer { redis.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = try RemoteURL.backend(
            "redis://127.0.0.1:\(redis.port)", timeouts: RemoteTimeouts(connect: .seconds(2), operation: .seconds(1)))
        let store = TieredStore(local: try directory.store("a"), remote: remote)
        try store.put(Data("v".utf8), for: "k")
        #expect(store.stats.errors == 1)
        #expect(try store.value(for: "k") == Data("v".utf8))
    }

    // MARK: - Redis Cluster

    @Test func redissClusterRoundTripPingAndACARefused() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        // Every node TLS only: clients, replication and the cluster bus.
        let cluster = try TestCluster.start(environment: ["BLOBSTORE_CLUSTER_TLS_DIR": certificates.directory])
        defer { cluster.stop() }
        #expect(cluster.url.hasPrefix("rediss+cluster://"))
        let remote = try RemoteURL.backend(
            cluster.url, timeouts: timeouts, tls: RemoteTLS(caFile: certificates.caFile))
        #expect(
            remote.name
                == "rediss+cluster://" + cluster.ports.prefix(3).map { "127.0.0.1:\($0)" }.joined(separator: ","))
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let writer = TieredStore(local: try directory.store("a"), remote: remote)
        for index in 0..<40 { try writer.put(ClusterWorkload.value(index), for: ClusterWorkload.key(index)) }
        #expect(writer.stats.uploads == 40)
        #expect(writer.stats.errors == 0, "\(String(describing: writer.lastError))")
        let reader = TieredStore(local: try directory.store("b"), remote: remote)
        var wrong = 0
        for index in 0..<40 {
            let value = try #require(try reader.value(for: ClusterWorkload.key(index)))
            wrong += ClusterWorkload.wrongBytes(value, ClusterWorkload.value(index))
        }
        #expect(wrong == 0)
        #expect(reader.stats.hits == 40)
        #expect(reader.stats.errors == 0, "\(String(describing: reader.lastError))")

        // Every node reached over TLS, on the tls-port the topology gives. A replica joins the
        // topology a moment after the cluster is created: on a loaded machine, wait for it.
        var nodes = remote.ping()
        let settled = ContinuousClock.now + .seconds(20)
        while nodes.filter({ $0.role == .replica }).count < 3, ContinuousClock.now < settled {
            Thread.sleep(forTimeInterval: 0.2)
            nodes = remote.ping()
        }
        #expect(nodes.allSatisfy { $0.isReachable }, "\(nodes.compactMap(\.error))")
        #expect(nodes.filter { $0.role == .master }.count == 3)
        #expect(nodes.filter { $0.role == .replica }.count == 3)
        #expect(Set(nodes.map(\.node)) == Set(cluster.ports.map { "rediss://127.0.0.1:\($0)" }))

        let untrusting = try RemoteURL.backend(
            cluster.url, timeouts: timeouts, tls: RemoteTLS(caFile: certificates.otherCAFile))
        try expectRefused(untrusting, because: Self.untrusted)
        #expect(untrusting.ping().allSatisfy { $0.role == .seed && !$0.isReachable })
    }

    // MARK: - Helpers

    /// `remote` refuses the server's certificate: the backend throws a remote error naming one of
    /// `reasons`, and a tiered store in front of it counts one remote error, keeps the value
    /// locally and cools down, and no local operation fails.
    private func expectRefused(_ remote: any RemoteBackend, because reasons: [String]) throws {
        #expect {
            _ = try remote.containsBlob(digest)
        } throws: { error in
            let error = error as? BlobStoreError
            return error?.code == .remote
                && reasons.contains { error?.message.contains("certificate was refused (\($0))") == true }
        }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let store = TieredStore(local: try directory.store("a"), remote: remote)
        try store.put(Data("v".utf8), for: "k")
        #expect(store.stats.errors == 1)
        #expect(store.stats.uploads == 0)
        let message = store.lastError?.message ?? ""
        #expect(reasons.contains(where: message.contains), "\(message)")
        #expect(store.isCoolingDown)
        #expect(try store.value(for: "k") == Data("v".utf8))
        #expect(try store.value(for: "absent") == nil)
        #expect(try store.local.value(for: "k") == Data("v".utf8))
    }
}
