import Foundation

/// The package's executables, as the tests run them.
public enum BuiltProducts {
    /// The executable `name` of the package's build products: next to the test bundle, else
    /// under `.build/debug` of the package.
    public static func executable(_ name: String) -> String {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let sibling = testBinary.deletingLastPathComponent().appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/" + name).path
    }
}
