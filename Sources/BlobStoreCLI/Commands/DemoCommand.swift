import BlobStore
import Foundation

/// `blobstore demo [<dir>] [--json]`: its description, its value, and its run below.
struct DemoCommand: SubcommandValue {
    /// The directory to store; `nil` is this package's `Sources` directory.
    var directory: String?
    /// `--json`: print the counts and the store's statistics as a JSON object.
    var json = false

    static let spec = CommandSpec<DemoCommand>(
        .demo,
        abstract: "Store every file of a directory under two keys and show what deduplication saves.",
        discussion: "Puts every regular file under <dir> as 'demo:a:<path>' and 'demo:b:<path>', reads "
            + "every value back and compares it with the file, then prints the bytes put, the "
            + "bytes added to disk, the bytes saved by deduplication and the store's statistics. "
            + "Hidden files and directories are skipped. Exits 65 if a value reads back different.",
        arguments: [
            .optional(
                "<dir>", help: "The directory to store.", default: "this package's Sources directory",
                .text(.directory), \.directory)
        ],
        options: [.flag("--json", help: "Print the counts and the store's statistics as a JSON object.", \.json)])

    func run(in runner: Runner) throws -> Int32 { try runner.demo(self) }
}

extension Runner {
    /// `demo [<dir>] [--json]`: puts every regular file under the directory under two keys, reads
    /// every value back and compares it with the file's bytes, and reports what deduplication
    /// saved, as text or, with `json`, as a JSON object.
    func demo(_ command: DemoCommand) throws -> Int32 {
        let json = command.json
        let source = URL(fileURLWithPath: command.directory ?? Self.defaultDemoDirectory()).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure(ExitCode.ioError, "'\(source)' is not a directory.")
        }
        let report = try withStore { store in
            let files = try Self.regularFiles(under: source, excluding: store.path)
            if !json, !options.quiet {
                try output.write("Storing each file under \(source) twice in \(store.path)\n\n")
            }

            var known = Set(try store.entries().map(\.digest))
            var bytesPut: UInt64 = 0
            var bytesAdded: UInt64 = 0
            var mismatches = 0
            for file in files {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: source + "/" + file))
                let keys = [StoreKey("demo:a:" + file), StoreKey("demo:b:" + file)]
                for key in keys {
                    let digest = try store.put(bytes, for: key)
                    bytesPut += UInt64(bytes.count)
                    if known.insert(digest).inserted { bytesAdded += UInt64(bytes.count) }
                }
                for key in keys where try store.value(for: key) != bytes {
                    errors.report("Error: the value read back for key '\(key)' differs from \(source)/\(file).\n")
                    mismatches += 1
                }
            }
            return DemoReport(
                source: source, store: store.path, files: files.count, valuesPut: files.count * 2, bytesPut: bytesPut,
                bytesAdded: bytesAdded, mismatches: mismatches, stats: try store.stats())
        }
        if json {
            try output.writeJSON(report)
        } else {
            try output.write(Self.summary(of: report))
        }
        return report.mismatches == 0 ? ExitCode.success : ExitCode.dataError
    }

    /// The human-readable demo report, then the store's statistics.
    static func summary(of report: DemoReport) -> String {
        let readBack = report.mismatches == 0 ? "all identical" : "\(report.mismatches) differ"
        return """
            files:          \(report.files)
            values put:     \(report.valuesPut) (keys demo:a:<path> and demo:b:<path>)
            bytes put:      \(report.bytesPut) (logical)
            bytes added:    \(report.bytesAdded) (new blobs written to disk)
            saved by dedup: \(report.bytesSaved) bytes
            read back:      \(report.valuesPut) values, \(readBack)

            Store statistics:

            """ + summary(of: report.stats)
    }

    /// The package's `Sources` directory, found from this file's path, or the current directory
    /// when the sources are not where they were built.
    static func defaultDemoDirectory(filePath: String = #filePath) -> String {
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while directory.path != "/" {
            let sources = directory.appendingPathComponent("Sources").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                FileManager.default.fileExists(atPath: sources, isDirectory: &isDirectory), isDirectory.boolValue
            {
                return sources
            }
            directory = directory.deletingLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath
    }

    /// Paths, relative to `root` and sorted, of the regular files under it; hidden files and
    /// directories, symbolic links and the store directory are skipped.
    static func regularFiles(under root: String, excluding store: String) throws -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: root) else {
            throw CommandFailure(ExitCode.ioError, "Cannot list '\(root)'.")
        }
        var files: [String] = []
        while let path = walk.nextObject() as? String {
            let absolute = root + "/" + path
            let type = try FileManager.default.attributesOfItem(atPath: absolute)[.type] as? FileAttributeType
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix(".") || absolute == store {
                if type == .typeDirectory { walk.skipDescendants() }
                continue
            }
            if type == .typeRegular { files.append(path) }
        }
        return files.sorted()
    }
}
