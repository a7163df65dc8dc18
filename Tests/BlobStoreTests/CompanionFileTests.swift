import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStore

/// Companion files (`<module>-stats`): small files other modules of the package keep at the top
/// of a store, which the store counts as its own without knowing any module's name.
struct CompanionFileTests {
    @Test func onlyLowercaseNamesEndingInStatsAreCompanionFiles() {
        for name in ["remote-stats", "proxy-stats", "x-stats"] {
            #expect(StoreLayout.isCompanionFileName(name), "\(name)")
            #expect(StoreLayout.isStoreFileName(name), "\(name)")
            #expect(StoreLayout.isAtomicWriteLeftover(name + ".0123abcd"), "\(name)")
        }
        for name in ["-stats", "stats", "Remote-stats", "remote-stats2", "a.b-stats", "a/b-stats", "rémote-stats"] {
            #expect(!StoreLayout.isCompanionFileName(name), "\(name)")
            #expect(!StoreLayout.isStoreFileName(name), "\(name)")
        }
    }

    /// A companion file written through the store reads back, is no stray for `verify`, and a
    /// directory of that name, or a name that is not a companion file's, is.
    @Test func aCompanionFileBelongsToTheStoreAndOtherNamesDoNot() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                try store.put(Data("v"), for: "k")
                try store.writeSmallFile("tier-stats", Array("{}".utf8))
                #expect(try store.readSmallFile("tier-stats", maximumSize: 16) == Array("{}".utf8))
                #expect(try store.readSmallFile("other-stats", maximumSize: 16) == nil)
                try FileManager.default.createDirectory(atPath: path + "/dir-stats", withIntermediateDirectories: false)
                writeBytes(path + "/Tier-stats", [1])
                #expect(try store.verify().strayFiles == [path + "/Tier-stats", path + "/dir-stats"])
            }
        }
    }

    /// A module cannot write a name the store would count as a stranger.
    @Test func aNameThatIsNotACompanionFilesIsRefused() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                for name in ["notes", "CURRENT", "journal-2", "../x-stats"] {
                    let error = #expect(throws: BlobStoreError.self) { try store.writeSmallFile(name, [1]) }
                    #expect(error?.code == .invalidArgument, "\(name)")
                    #expect(throws: BlobStoreError.self) { _ = try store.readSmallFile(name, maximumSize: 1) }
                }
            }
        }
    }
}
