import Foundation

/// The `blobstore` command: parses the command line, runs the subcommand, returns an exit code.
public enum BlobStoreCLI {
    /// Printed by `blobstore --version`.
    public static let version = "0.1.0"

    /// Runs with the process's arguments and environment and exits with the resulting code.
    public static func main() -> Never {
        let code = run(
            arguments: Array(CommandLine.arguments.dropFirst()),
            environment: ProcessInfo.processInfo.environment)
        exit(code)
    }

    /// Runs one command line.
    ///
    /// - Parameters:
    ///   - arguments: The command line without the program name.
    ///   - environment: Consulted for the default store (``StoreLocation``).
    ///   - standardInput: What `put <key>` without a file stores.
    ///   - standardOutput: Results.
    ///   - standardError: Errors and warnings.
    /// - Returns: The exit code (``ExitCode``).
    public static func run(
        arguments: [String],
        environment: [String: String],
        standardInput: FileHandle = .standardInput,
        standardOutput: FileHandle = .standardOutput,
        standardError: FileHandle = .standardError
    ) -> Int32 {
        let output = Output(standardOutput)
        let errors = Output(standardError)
        let invocation: Invocation
        do {
            invocation = try ArgumentParser.parse(arguments)
        } catch {
            errors.report(HelpText.usageError(error))
            return ExitCode.usage
        }
        let runner = Runner(
            options: invocation.options, environment: environment, standardInput: standardInput,
            output: output, errors: errors)
        return runner.run(invocation.command)
    }
}
