/// `blobstore completions bash|zsh|fish`: its description, its value, and its run.
struct CompletionsCommand: SubcommandValue {
    /// The shell to write the script for (placeholder until the argument, which is required, is
    /// read).
    var shell = CompletionScript.Shell.bash

    static let spec = CommandSpec<CompletionsCommand>(
        .completions,
        abstract: "Print a shell completion script for bash, zsh or fish.",
        discussion: "The script completes the subcommands, the options each takes, and the values of options "
            + "and arguments that are paths or one of a few words (--durability none|batched|always). Load "
            + "it from the shell's startup file: 'source <(blobstore completions bash)' in ~/.bashrc, "
            + "'source <(blobstore completions zsh)' in ~/.zshrc after compinit, or 'blobstore completions "
            + "fish | source' in ~/.config/fish/config.fish. Opens no store.",
        usesStore: false,
        arguments: [.required("<shell>", help: "The shell: bash, zsh or fish.", .choice, \.shell)])

    func run(in runner: Runner) throws -> Int32 {
        try runner.output.write(CompletionScript.script(for: shell))
        return ExitCode.success
    }
}
