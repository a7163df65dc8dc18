// swift-tools-version: 6.0
import PackageDescription

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
        .target(name: "BlobStore", dependencies: ["CLibCrypto", "CCRC32C", "CSharedCounter", "CLinux"]),
        // The memory tier and typed objects, over the store's public API only.
        .target(name: "BlobStoreCache", dependencies: ["BlobStore"]),
        .target(name: "BlobStoreHTTP", dependencies: ["BlobStore", "BlobStoreCache"]),
        .target(name: "BlobStoreRemote", dependencies: ["BlobStore", "CLibSSL"]),
        // The caching HTTP proxy of `blobstore serve`, on the HTTP cache's rules.
        .target(name: "BlobStoreProxy", dependencies: ["BlobStore", "BlobStoreCache", "BlobStoreHTTP"]),
        .target(
            name: "BlobStoreCLI",
            dependencies: ["BlobStore", "BlobStoreCache", "BlobStoreHTTP", "BlobStoreRemote", "BlobStoreProxy"]),
        .executableTarget(name: "blobstore", dependencies: ["BlobStoreCLI"]),
        .executableTarget(name: "blobstore-torture", dependencies: ["BlobStore"]),
        .executableTarget(name: "blobstore-bench", dependencies: ["BlobStore"]),
        // Small programs that show the libraries in use (Examples/README.md); built with the rest.
        .executableTarget(
            name: "ImageCacheExample", dependencies: ["BlobStore", "BlobStoreCache"], path: "Examples/ImageCacheExample"),
        .executableTarget(
            name: "HTTPClientCacheExample", dependencies: ["BlobStore", "BlobStoreCache", "BlobStoreHTTP"],
            path: "Examples/HTTPClientCacheExample"),
        // The Redis Cluster load test's processes and report (scripts/cluster-load.sh).
        .executableTarget(name: "blobstore-cluster-load", dependencies: ["BlobStore", "BlobStoreRemote"]),
        .testTarget(name: "BlobStoreTests", dependencies: ["BlobStore", "BlobStoreCache"], exclude: ["Fixtures"]),
        .testTarget(
            name: "BlobStoreRemoteTests", dependencies: ["BlobStoreRemote", "BlobStore", "BlobStoreCLI", "BlobStoreHTTP"]
        ),
        // The Python HTTP server the HTTP cache and CLI tests talk to, and its Swift wrapper.
        .target(name: "HTTPTestServer", path: "Tests/HTTPTestServer", exclude: ["http_server.py"]),
        .testTarget(
            name: "BlobStoreHTTPTests", dependencies: ["BlobStoreHTTP", "BlobStore", "BlobStoreCache", "HTTPTestServer"]),
        .testTarget(
            name: "BlobStoreProxyTests",
            dependencies: ["BlobStoreProxy", "BlobStore", "BlobStoreCache", "HTTPTestServer", "blobstore"]),
        .testTarget(
            name: "BlobStoreCLITests",
            dependencies: [
                "BlobStoreCLI", "blobstore", "blobstore-torture", "BlobStore", "BlobStoreCache", "HTTPTestServer",
                "ImageCacheExample",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
