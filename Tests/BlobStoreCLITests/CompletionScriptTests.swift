import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStoreCLI

/// `blobstore completions bash|zsh|fish`: each script parses in its shell, and the bash one,
/// sourced, offers what the specs describe.
@Suite struct CompletionScriptTests {
    /// The shell at `path`, when it is installed.
    static func installed(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs `shell arguments…` on `script` (written to a file) and returns what it did.
    static func run(_ shell: String, _ arguments: [String], script: String) throws -> Execution {
        try withTemporaryDirectory { scratch in
            let file = try scratch.write("script", Data(script.utf8))
            return try ChildProcess.run(shell, arguments + [file], in: scratch)
        }
    }

    /// What the bash script's `_blobstore` offers for the command line `words`, the cursor on its
    /// last word.
    static func bashCompletes(_ words: [String]) throws -> [String] {
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let script =
            CompletionScript.script(for: .bash) + """
                COMP_WORDS=(\(quoted))
                COMP_CWORD=\(words.count - 1)
                _blobstore
                printf '%s\\n' "${COMPREPLY[@]}"

                """
        let run = try Self.run("/bin/bash", [], script: script)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(words): \(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test func theCommandPrintsEachScript() throws {
        try withTemporaryDirectory { scratch in
            for shell in CompletionScript.Shell.allCases {
                let run = try blobstore(["completions", shell.rawValue], in: scratch)
                #expect(run.status == 0 && run.stderr.isEmpty)
                #expect(run.stdout == CompletionScript.script(for: shell))
            }
            let bad = try blobstore(["completions", "tcsh"], in: scratch)
            #expect(bad.status == ExitCode.usage)
            #expect(bad.stderr.hasPrefix("Error: The value 'tcsh' is invalid for '<shell>'. Use bash, zsh or fish\n"))
            #expect(try blobstore(["completions"], in: scratch).stderr.hasPrefix("Error: Missing expected argument"))
        }
    }

    @Test func bashScriptParses() throws {
        let run = try Self.run("/bin/bash", ["-n"], script: CompletionScript.script(for: .bash))
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test(.enabled(if: installed("/usr/bin/zsh"), "zsh is not installed"))
    func zshScriptParses() throws {
        let run = try Self.run("/usr/bin/zsh", ["-n"], script: CompletionScript.script(for: .zsh))
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test(.enabled(if: installed("/usr/bin/fish"), "fish is not installed"))
    func fishScriptParses() throws {
        let run = try Self.run("/usr/bin/fish", ["--no-execute"], script: CompletionScript.script(for: .fish))
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
    }

    /// The fish script, sourced, offers a subcommand's options and an option's words.
    @Test(.enabled(if: installed("/usr/bin/fish"), "fish is not installed"))
    func fishOffersOptionsAndWords() throws {
        let script =
            CompletionScript.script(for: .fish)
            + "complete -C 'blobstore gc --d'\necho\ncomplete -C 'blobstore --durability '\n"
        let run = try Self.run("/usr/bin/fish", [], script: script)
        let names = run.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        #expect(names == ["--dry-run", "--durability", "always", "batched", "none"], "\(run.stdout)")
    }

    @Test func bashOffersTheSubcommands() throws {
        #expect(try Self.bashCompletes(["blobstore", ""]) == Subcommand.allCases.map(\.rawValue))
        #expect(try Self.bashCompletes(["blobstore", "--store", "/s", "co"]) == ["compact", "config", "completions"])
        #expect(try Self.bashCompletes(["blobstore", "help", "ve"]) == ["verify"])
        let root = try Self.bashCompletes(["blobstore", "-"])
        #expect(root.contains("--version") && root.contains("--remote") && root.contains("-q"))
    }

    /// Every option a subcommand's spec lists, and every global one it takes, is offered after it;
    /// nothing else is.
    @Test(arguments: Subcommand.allCases)
    func bashOffersEachSubcommandsOptions(_ subcommand: Subcommand) throws {
        let offered = try Self.bashCompletes(["blobstore", subcommand.rawValue, "-"])
        #expect(offered == subcommand.help.allOptions.flatMap(\.names))
    }

    @Test func bashOffersTheValuesOfOptionsAndArguments() throws {
        #expect(try Self.bashCompletes(["blobstore", "--durability", ""]) == ["none", "batched", "always"])
        #expect(try Self.bashCompletes(["blobstore", "ls", "--durability", "a"]) == ["always"])
        #expect(try Self.bashCompletes(["blobstore", "remote", ""]) == ["ping"])
        #expect(try Self.bashCompletes(["blobstore", "completions", "z"]) == ["zsh"])
        // A path: what compgen finds for it (the directory this package is in has Package.swift).
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        #expect(
            try Self.bashCompletes(["blobstore", "get", "k", "-o", package + "/Package.sw"]) == [
                package + "/Package.swift"
            ])
        #expect(
            try Self.bashCompletes(["blobstore", "put", "k", package + "/Package.sw"]) == [package + "/Package.swift"])
        #expect(try Self.bashCompletes(["blobstore", "--store", package + "/Sou"]) == [package + "/Sources"])
        #expect(try Self.bashCompletes(["blobstore", "demo", package + "/Package.sw"]).isEmpty, "a directory only")
        // A key, a second key of `has`, a value of `--listen`: nothing.
        #expect(try Self.bashCompletes(["blobstore", "has", ""]).isEmpty)
        #expect(try Self.bashCompletes(["blobstore", "has", "k", ""]).isEmpty)
        #expect(try Self.bashCompletes(["blobstore", "serve", "--listen", ""]).isEmpty)
    }
}
