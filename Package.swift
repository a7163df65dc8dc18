// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "BlobStore",
    products: [
        .library(name: "BlobStore", targets: ["BlobStore"]),
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
        .target(name: "BlobStore", dependencies: ["CLibCrypto", "CCRC32C"]),
        .target(name: "BlobStoreRemote", dependencies: ["BlobStore"]),
        .target(name: "BlobStoreCLI", dependencies: ["BlobStore", "BlobStoreRemote"]),
        .executableTarget(name: "blobstore", dependencies: ["BlobStoreCLI"]),
        .executableTarget(name: "blobstore-torture", dependencies: ["BlobStore"]),
        .testTarget(name: "BlobStoreTests", dependencies: ["BlobStore"]),
        .testTarget(name: "BlobStoreRemoteTests", dependencies: ["BlobStoreRemote", "BlobStore", "BlobStoreCLI"]),
        .testTarget(
            name: "BlobStoreCLITests",
            dependencies: ["BlobStoreCLI", "blobstore", "blobstore-torture", "BlobStore"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
