// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "BlobStore",
    products: [
        .library(name: "BlobStore", targets: ["BlobStore"]),
        .library(name: "BlobStoreHTTP", targets: ["BlobStoreHTTP"]),
        .library(name: "BlobStoreRemote", targets: ["BlobStoreRemote"]),
        .executable(name: "blobstore", targets: ["blobstore"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "CCRC32C"),
        .target(name: "CSharedCounter"),
        .target(name: "CLinux"),
        .target(name: "BlobStore", dependencies: ["CLibCrypto", "CCRC32C", "CSharedCounter", "CLinux"]),
        .target(name: "BlobStoreHTTP", dependencies: ["BlobStore"]),
        .target(name: "BlobStoreRemote", dependencies: ["BlobStore"]),
        .target(name: "BlobStoreCLI", dependencies: ["BlobStore", "BlobStoreHTTP", "BlobStoreRemote"]),
        .executableTarget(name: "blobstore", dependencies: ["BlobStoreCLI"]),
        .executableTarget(name: "blobstore-torture", dependencies: ["BlobStore"]),
        .executableTarget(name: "blobstore-bench", dependencies: ["BlobStore"]),
        // The Redis Cluster load test's processes and report (scripts/cluster-load.sh).
        .executableTarget(name: "blobstore-cluster-load", dependencies: ["BlobStore", "BlobStoreRemote"]),
        .testTarget(name: "BlobStoreTests", dependencies: ["BlobStore"], exclude: ["Fixtures"]),
        .testTarget(
            name: "BlobStoreRemoteTests", dependencies: ["BlobStoreRemote", "BlobStore", "BlobStoreCLI", "BlobStoreHTTP"]
        ),
        // The Python HTTP server the HTTP cache and CLI tests talk to, and its Swift wrapper.
        .target(name: "HTTPTestServer", path: "Tests/HTTPTestServer", exclude: ["http_server.py"]),
        .testTarget(name: "BlobStoreHTTPTests", dependencies: ["BlobStoreHTTP", "BlobStore", "HTTPTestServer"]),
        .testTarget(
            name: "BlobStoreCLITests",
            dependencies: ["BlobStoreCLI", "blobstore", "blobstore-torture", "BlobStore", "HTTPTestServer"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
