// swift-tools-version: 6.0
import PackageDescription

/// `FaultInjection` and `TestHooks` (Sources/BlobStore) are compiled into debug builds only: a
/// release build of the library has no fault-injection code or symbol (.ci/run checks with nm).
/// blobstore-torture's modes that stop at a `TestHooks` point set the same condition; a release
/// build that needs them passes `-Xswiftc -DBLOBSTORE_FAULT_INJECTION`. The tests are built in
/// debug (their `@testable` imports need it), so they always have them.
let faultInjection: [SwiftSetting] = [.define("BLOBSTORE_FAULT_INJECTION", .when(configuration: .debug))]

let package = Package(
    name: "BlobStore",
    products: [
        .library(name: "BlobStore", targets: ["BlobStore"]),
        .library(name: "BlobStoreCache", targets: ["BlobStoreCache"]),
        .library(name: "BlobStoreHTTP", targets: ["BlobStoreHTTP"]),
        .library(name: "BlobStoreRemote", targets: ["BlobStoreRemote"]),
        .library(name: "BlobStoreProxy", targets: ["BlobStoreProxy"]),
        .executable(name: "blobstore", targets: ["blobstore"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // TLS for the remote tier's https:// and rediss:// connections.
        .systemLibrary(
            name: "CLibSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "CCRC32C"),
        .target(name: "CSharedCounter"),
        .target(name: "CLinux"),
        .target(name: "CEpoll"),
        .target(
            name: "BlobStore", dependencies: ["CLibCrypto", "CCRC32C", "CSharedCounter", "CLinux"],
            swiftSettings: faultInjection),
        // The memory tier and typed objects, over the store's public API only.
        .target(name: "BlobStoreCache", dependencies: ["BlobStore"]),
        .target(name: "BlobStoreHTTP", dependencies: ["BlobStore", "BlobStoreCache", "BlobStoreNet"]),
        // One socket layer and HTTP/1.1 client (with TLS) for the remote tier, the HTTP cache's
        // downloads and `blobstore fetch`: blocking calls with exact deadlines.
        .target(name: "BlobStoreNet", dependencies: ["BlobStore", "CLibSSL"]),
        .target(name: "BlobStoreRemote", dependencies: ["BlobStore", "BlobStoreNet"]),
        // The caching HTTP proxy of `blobstore serve`, on the HTTP cache's rules. Its async functions run
        // on their caller's executor (the event loop): no executor check and switch at each call and return.
        .target(
            name: "BlobStoreProxy", dependencies: ["BlobStore", "BlobStoreCache", "BlobStoreHTTP", "CEpoll"],
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]),
        .target(
            name: "BlobStoreCLI",
            dependencies: ["BlobStore", "BlobStoreCache", "BlobStoreHTTP", "BlobStoreRemote", "BlobStoreProxy"]),
        .executableTarget(name: "blobstore", dependencies: ["BlobStoreCLI"]),
        .executableTarget(
            name: "blobstore-torture", dependencies: ["BlobStore"], swiftSettings: faultInjection),
        // Cache-request traces for `blobstore-bench hit-ratio`: libCacheSim's CSV and
        // oracleGeneral formats, and seeded Zipf, Zipf-with-scans and loop generators.
        .target(name: "BlobStoreTraces"),
        .executableTarget(name: "blobstore-bench", dependencies: ["BlobStore", "BlobStoreTraces"]),
        // Small programs that show the libraries in use (Examples/README.md); built with the rest.
        .executableTarget(
            name: "ImageCacheExample", dependencies: ["BlobStore", "BlobStoreCache"], path: "Examples/ImageCacheExample"),
        .executableTarget(
            name: "HTTPClientCacheExample", dependencies: ["BlobStore", "BlobStoreCache", "BlobStoreHTTP"],
            path: "Examples/HTTPClientCacheExample"),
        // The Redis Cluster load test's processes and report (scripts/cluster-load.sh).
        .executableTarget(name: "blobstore-cluster-load", dependencies: ["BlobStore", "BlobStoreRemote"]),
        // What every test target shares (Tests/BlobStoreTestKit): the temporary directory, SplitMix64,
        // opening a store, running a child process and reading its peak memory, the tools a test needs.
        .target(name: "BlobStoreTestKit", dependencies: ["BlobStore"], path: "Tests/BlobStoreTestKit"),
        // The child process of the tests that measure memory (its modes: Tests/BlobStoreTestHelper/main.swift).
        .executableTarget(
            name: "blobstore-test-helper", dependencies: ["BlobStore"], path: "Tests/BlobStoreTestHelper"),
        .testTarget(
            name: "BlobStoreTests",
            dependencies: ["BlobStore", "BlobStoreCache", "BlobStoreTestKit", "blobstore-test-helper"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "BlobStoreRemoteTests",
            dependencies: ["BlobStoreRemote", "BlobStoreNet", "BlobStore", "BlobStoreCLI", "BlobStoreHTTP", "BlobStoreTestKit"]
        ),
        // The Python HTTP server the HTTP cache and CLI tests talk to, and its Swift wrapper.
        .target(name: "HTTPTestServer", path: "Tests/HTTPTestServer", exclude: ["http_server.py"]),
        .testTarget(
            name: "BlobStoreHTTPTests",
            dependencies: ["BlobStoreHTTP", "BlobStore", "BlobStoreCache", "HTTPTestServer", "BlobStoreTestKit"]),
        .testTarget(
            name: "BlobStoreProxyTests",
            dependencies: ["BlobStoreProxy", "BlobStore", "BlobStoreCache", "HTTPTestServer", "blobstore", "BlobStoreTestKit"]),
        .testTarget(
            name: "BlobStoreCLITests",
            dependencies: [
                "BlobStoreCLI", "blobstore", "blobstore-torture", "BlobStore", "BlobStoreCache", "HTTPTestServer",
                "ImageCacheExample", "BlobStoreTestKit",
            ],
            // The help and usage errors expected byte for byte (HelpGoldenTests).
            exclude: ["Golden"]
        ),
        .testTarget(name: "BlobStoreTracesTests", dependencies: ["BlobStoreTraces"]),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: - Fuzz harnesses

// The libFuzzer harnesses (Fuzz/README.md), declared only when BLOBSTORE_FUZZ=1, which
// Fuzz/run.sh sets; it builds them with `--sanitize fuzzer --sanitize address -c release
// -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing` into .build/fuzz/, so that the whole module graph below each harness
// is instrumented and the harness reaches internal symbols with `@testable import`. With the
// fuzzer sanitizer SwiftPM compiles an executable as a library: libFuzzer's `main` calls the
// harness's `LLVMFuzzerTestOneInput`.
if Context.environment["BLOBSTORE_FUZZ"] == "1" {
    /// Each harness `Fuzz/<name>Fuzz.swift`, with the module it tests, whose support files are in
    /// `Fuzz/Support/<module>/` (the target `<module>FuzzSupport`).
    let harnesses: [(name: String, module: String)] = [
        ("JournalReader", "BlobStore"), ("JournalRecord", "BlobStore"), ("ManifestReader", "BlobStore"),
        ("ManifestTable", "BlobStore"), ("PackReader", "BlobStore"), ("ArgumentParser", "BlobStoreCLI"),
        ("Quantity", "BlobStoreCLI"), ("ClusterTopology", "BlobStoreRemote"), ("HTTPMessage", "BlobStoreProxy"),
        ("HTTPReply", "BlobStoreNet"), ("TraceReader", "BlobStoreTraces"), ("PolicySnapshot", "BlobStore"),
        ("ChunkRecipe", "BlobStore"), ("RecordJSON", "BlobStoreHTTP"),
    ]
    // The seed corpora's writer (Fuzz/make-seeds.sh; built without the sanitizers).
    package.targets.append(
        .executableTarget(
            name: "make-seeds", dependencies: ["BlobStore", "BlobStoreFuzzSupport", "BlobStoreTraces"],
            path: "Fuzz/MakeSeeds"))
    for module in [
        "BlobStore", "BlobStoreCLI", "BlobStoreRemote", "BlobStoreProxy", "BlobStoreNet", "BlobStoreTraces",
        "BlobStoreHTTP",
    ] {
        package.targets.append(
            .target(name: module + "FuzzSupport", dependencies: [.target(name: module)], path: "Fuzz/Support/" + module))
    }
    /// What else is in Fuzz/, left out of each harness's target (the other harnesses are too).
    let others = ["Corpus", "Dictionaries", "FailCases", "MakeSeeds", "Support", "README.md", "run.sh", "make-seeds.sh"]
    for harness in harnesses {
        package.targets.append(
            .executableTarget(
                name: harness.name + "Fuzz",
                dependencies: [.target(name: harness.module), .target(name: harness.module + "FuzzSupport")],
                path: "Fuzz",
                exclude: others + harnesses.filter { $0.name != harness.name }.map { $0.name + "Fuzz.swift" },
                sources: [harness.name + "Fuzz.swift"]))
    }
}
