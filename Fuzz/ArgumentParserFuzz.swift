// libFuzzer harness for ArgumentParser.parse. Build and run with `Fuzz/run.sh ArgumentParser 60`;
// Fuzz/README.md lists the properties.
//
// The input is a command line: arguments separated by NUL or newline, any bytes in between
// (see argumentVector). The dictionary Fuzz/Dictionaries/ArgumentParser.dict supplies the
// subcommand and option names.

import BlobStore

@testable import BlobStoreCLI
@testable import BlobStoreCLIFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // (i) The help and the completion scripts are derived from every subcommand's spec (once).
    check(derivedTextsAreWhole, "a subcommand's help or completion leaves out something its spec has")
    let arguments = argumentVector(Array(UnsafeBufferPointer(start: data, count: size)))
    let line = "[" + arguments.map(quoted).joined(separator: ", ") + "]"
    // (a) parse is total: it returns or throws, and throws only CommandLineError (its signature).
    let result = parse(arguments)
    // (b) Parsing is deterministic.
    check(parse(arguments) == result, "\(line) parses differently the second time")

    // (c) -h or --help (also --help=…) before the first `--` wins over anything else.
    let options = arguments.prefix { $0 != "--" }
    if options.contains(where: {
        $0 == "-h" || $0 == "--help" || $0.unicodeScalars.starts(with: "--help=".unicodeScalars)
    }) {
        guard case .success(let invocation) = result, invocation.command.subcommand == .help else {
            fail("\(line) asks for help, but parses as \(result)")
        }
    }
    // (d) After `--` every argument is an argument: one that looks like an option parses like a
    //     plain word in its place (same kind of result).
    if let dashes = arguments.firstIndex(of: "--") {
        var plain = arguments
        for index in plain.indices.dropFirst(dashes + 1) where looksLikeAnOption(plain[index]) {
            plain[index] = "x"
        }
        let plainResult = parse(plain)
        check(
            outcomeKind(plainResult) == outcomeKind(result),
            "after '--', options are arguments, but \(line) parses as \(result) and, with plain words after '--', "
                + "as \(plainResult)")
    }

    switch result {
    case .success(let invocation):
        checkAccepted(invocation, arguments, line)
    case .failure(let error):
        // (h) The error says something and names a subcommand of the line, and its usage renders.
        check(!error.message.isEmpty, "\(line): an empty error message")
        if let subcommand = error.subcommand {
            check(arguments.contains(subcommand.rawValue), "\(line): the error names \(subcommand)")
        }
        check(HelpText.usageError(error).hasPrefix("Error: \(error.message)\n"), "\(line): usage error text")
    }
    return 0
}

private func parse(_ arguments: [String]) -> Result<Invocation, CommandLineError> {
    Result { () throws(CommandLineError) in try ArgumentParser.parse(arguments) }
}

private func checkAccepted(_ invocation: Invocation, _ arguments: [String], _ line: String) {
    // (e) The canonical spellings of an accepted invocation parse back to it.
    for style in ArgumentStyle.allCases {
        let canonical = canonicalArguments(invocation, style: style)
        let again = parse(canonical)
        check(
            again == .success(invocation),
            "\(line) parses as \(invocation); its \(style) spelling [\(canonical.map(quoted).joined(separator: ", "))] "
                + "as \(again)")
    }

    // (f) Keys, files and directories are taken exactly as given: byte for byte an argument, or
    //     the part of one after `=`.
    let givens = Set(
        arguments.flatMap { argument -> [[UInt8]] in
            let bytes = Array(argument.utf8)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return [bytes] }
            return [bytes, Array(bytes[(equals + 1)...])]
        })
    var texts: [String?] = [invocation.options.store, invocation.options.remoteCA]
    /// The subcommand's value; the version has none, and nothing to check, as help on nothing.
    let value: any SubcommandValue = if case .run(let value) = invocation.command { value } else { HelpCommand() }
    switch value {
    case let put as PutCommand: texts += [put.key, put.file]
    case let get as GetCommand: texts += get.keys + [get.output]
    case let blob as BlobCommand: texts.append(blob.output)
    case let remove as RemoveCommand: texts += remove.keys
    case let has as HasCommand: texts.append(has.key)
    case let demo as DemoCommand: texts.append(demo.directory)
    case let serve as ServeCommand: texts += [serve.origin, serve.accessLog]
    case let fetch as FetchCommand:
        texts += [fetch.url, fetch.output]
        for field in fetch.headers {
            let prefix = Array((field.name + ":").utf8)
            check(
                givens.contains { $0.starts(with: prefix) },
                "\(line): the header \(quoted(field.name)) is not one of the arguments as given")
        }
    default: break
    }
    for case let text? in texts {
        check(givens.contains(Array(text.utf8)), "\(line): \(quoted(text)) is not one of the arguments as given")
    }

    // (g) Accepted values are in their ranges.
    if let store = invocation.options.store { check(!store.isEmpty, "\(line): an empty store accepted") }
    if let remoteCA = invocation.options.remoteCA { check(!remoteCA.isEmpty, "\(line): an empty CA file accepted") }
    switch value {
    case let get as GetCommand:
        check(get.output.map { !$0.isEmpty } ?? true, "\(line): an empty output file accepted")
    case let fetch as FetchCommand:
        check(fetch.output.map { !$0.isEmpty } ?? true, "\(line): an empty output file accepted")
    case let serve as ServeCommand:
        check((1...100_000).contains(serve.maxConnections), "\(line): max connections \(serve.maxConnections)")
        for timeout in [serve.headerTimeout, serve.idleTimeout, serve.originTimeout] {
            check(timeout >= .milliseconds(1), "\(line): timeout \(timeout)")
        }
    case let collect as CollectGarbageCommand:
        check(collect.capacity.map { $0 >= 1 } ?? true, "\(line): capacity \(collect.capacity!)")
        check(collect.maxEntries.map { $0 >= 1 } ?? true, "\(line): max entries \(collect.maxEntries!)")
        check(collect.maxAge.map { $0 >= .milliseconds(1) } ?? true, "\(line): max age \(collect.maxAge!)")
        check(collect.grace.map { $0 >= .zero } ?? true, "\(line): grace \(collect.grace!)")
    case let changes as ConfigCommand:
        if case .set(let capacity)? = changes.capacity { check(capacity >= 1, "\(line): capacity \(capacity)") }
        if case .set(let entries)? = changes.maxEntries { check(entries >= 1, "\(line): max entries \(entries)") }
        if case .set(let age)? = changes.maxAge { check(age >= .milliseconds(1), "\(line): max age \(age)") }
        if let lowWater = changes.lowWater {
            check((0.5...1).contains(lowWater), "\(line): low water \(lowWater)")
        }
    default:
        break
    }
}

/// Whether every subcommand's help shows its usage line, each argument and each option its spec
/// lists (global ones included), and every completion script names each subcommand and option:
/// what the help and the scripts derive from the specs. Computed once.
let derivedTextsAreWhole: Bool = {
    let scripts = CompletionScript.Shell.allCases.map(CompletionScript.script)
    for subcommand in Subcommand.allCases {
        let help = subcommand.help
        let text = HelpText.subcommand(subcommand)
        guard text.hasPrefix("OVERVIEW: \(help.abstract)\n"), text.contains("USAGE: blobstore \(help.usage)\n"),
            HelpText.root().contains("\n  \(subcommand.rawValue) ")
        else { return false }
        for argument in help.arguments where !text.contains("\n  \(argument.helpLabel)") { return false }
        for option in help.allOptions where !text.contains("\n  \(option.helpLabel)") { return false }
        for script in scripts where !script.contains(subcommand.rawValue) { return false }
        for option in help.allOptions {
            let long = String(option.name.dropFirst(2))
            for script in scripts where !script.contains(long) { return false }
        }
    }
    return true
}()
