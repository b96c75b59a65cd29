import ArgumentParser
import Foundation
import TimbreApp
import TimbreCore

/// Tab completion beyond ArgumentParser's own (commands and options): what a REF, a folder or
/// `--by` can be. The shells run `timbre ---completion …`, which answers from the cache of the
/// profile the line names (`--profile`, else `TIMBRE_PROFILE`), each candidate written for the
/// shell that asks (`ShellWords`).
extension CompletionKind {
    /// Cached playlist names and ids, and `liked`.
    static var playlists: CompletionKind {
        .custom { words, _, prefix in
            ShellCompletion.playlists(
                words: words, prefix: prefix, shell: CompletionScripts.requesting, environment: ProcessInfo.processInfo.environment)
        }
    }

    /// The local folders' names.
    static var folders: CompletionKind {
        .custom { words, _, prefix in
            ShellCompletion.folders(
                words: words, prefix: prefix, shell: CompletionScripts.requesting, environment: ProcessInfo.processInfo.environment)
        }
    }

    static var sortFields: CompletionKind { .list(ShellCompletion.sortFields) }
}

/// The completion scripts `timbre completion SHELL` (and `--generate-completion-script SHELL`)
/// print: ArgumentParser's, with bash's custom completions read as literal lines.
enum CompletionScripts {
    /// The shell asking for candidates, while a custom completion runs.
    static var requesting: CompletingShell? {
        CompletionShell.requesting.flatMap { CompletingShell(rawValue: $0.rawValue) }
    }

    /// The script for `shell`, ending with a newline.
    static func script(for shell: CompletingShell) -> String {
        let script =
            switch shell {
            case .bash: literalBash(Root.completionScript(for: .bash))
            case .zsh: Root.completionScript(for: .zsh)
            case .fish: Root.completionScript(for: .fish)
            }
        return script.hasSuffix("\n") ? script : script + "\n"
    }

    /// ArgumentParser's bash script gives a custom completion's output to `compgen -W`, which
    /// expands `$(…)`, backticks and `$VAR` in it: a playlist named `$(touch x)` would run.
    /// Each such call instead reads timbre's lines into COMPREPLY as they are (readline quotes
    /// them, `complete -o filenames`), and tells timbre it does (`ShellWords.literalMarker`).
    static func literalBash(_ generated: String) -> String {
        let call = "__timbre_add_completions -W \"$(__timbre_custom_complete "
        let lines = generated.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard let range = line.range(of: call), line.hasSuffix(")\"") else { return String(line) }
            let arguments = line[range.upperBound..<line.index(line.endIndex, offsetBy: -2)]
            return String(line[..<range.lowerBound]) + "__timbre_add_literal_completions " + String(arguments)
        }
        let reader = """
            # timbre: each line timbre prints is one literal candidate, never expanded.
            __timbre_add_literal_completions() {
                local completion
                while IFS='' read -r completion; do
                    [[ -n "${completion}" ]] && COMPREPLY+=("${completion}")
                done < <(\(ShellWords.literalMarker)=\(ShellWords.literalValue) __timbre_custom_complete "${@}")
            }

            """
        var script = lines.joined(separator: "\n")
        if let end = script.range(of: "\n")?.upperBound {
            script.insert(contentsOf: "\n" + reader, at: end)
        }
        return script
    }
}

extension Root {
    struct Completion: Runnable {
        static let configuration = CommandConfiguration(
            commandName: "completion",
            abstract: "Print the Tab completion script for bash, zsh or fish.",
            discussion: """
                Save it where the shell loads completions (README "Tab completion"): bash, with the \
                bash-completion package: ~/.local/share/bash-completion/completions/timbre; zsh: a file \
                named _timbre in a folder of $fpath, before compinit; fish: ~/.config/fish/completions/timbre.fish. \
                Playlist names reach the shell as literal words: a name is never run, whatever it holds.
                """
        )

        @Argument(help: "bash, zsh or fish.", completion: .list(CompletingShell.allCases.map(\.rawValue)))
        var shell: String

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            guard let shell = CompletingShell(rawValue: shell) else {
                throw UsageError(
                    message: "there is no completion for the shell '\(TerminalText.preview(shell, limit: 40))'",
                    hint: "say bash, zsh or fish: `timbre completion bash`")
            }
            invocation.console.write(CompletionScripts.script(for: shell))
            return .success
        }
    }
}
