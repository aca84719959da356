
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'ai' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'ai'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'ai' {
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'Continue the last conversation (one-shot or REPL), or the one with this ID (see --history): `ai --resume "and the second error?"`, or `ai -i --resume`')
            [CompletionResult]::new('--shell', '--shell', [CompletionResultType]::ParameterName, 'With --command: the shell the command is for (bash, zsh, fish, ...); the widget scripts pass theirs. Default: the name of $SHELL')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Model name [env: SWEBASH_AI_MODEL]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model name [env: SWEBASH_AI_MODEL]')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider or service: anthropic, openai (alias openai-compatible), gemini, groq, openrouter, deepseek, mistral, together, lmstudio, vllm, llamacpp, ollama, ollama-openai, local [env: SWEBASH_AI_PROVIDER]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 [env: SWEBASH_AI_BASE_URL]')
            [CompletionResult]::new('--tool-format', '--tool-format', [CompletionResultType]::ParameterName, 'How tools are called: auto, native, or a prompt-based family (generic, hermes, qwen, llama3, mistral, json, gemma, lfm2, granite) [env: SWEBASH_AI_TOOL_FORMAT]')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Tools to offer the model, comma-separated: fs,exec,web')
            [CompletionResult]::new('--max-iterations', '--max-iterations', [CompletionResultType]::ParameterName, 'Maximum model requests in one turn [env: SWEBASH_AI_TOOLS_MAX_ITER]')
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Approve commands matching this glob pattern, e.g. ''make deploy*'', to run inside the sandbox (repeatable)')
            [CompletionResult]::new('--sandbox', '--sandbox', [CompletionResultType]::ParameterName, 'Sandbox for commands that run without asking: workspace (writes only under the working and temp dirs), read-only, or off [env: SWEBASH_AI_SANDBOX]')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'The final answer must be one JSON value valid against this JSON Schema file: printed alone (with --json, `answer` is the value); exit 1 if the model cannot comply [env: SWEBASH_AI_OUTPUT_SCHEMA]')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'With --stats: only the last PERIOD, e.g. 7d, 12h, 30m')
            [CompletionResult]::new('--check-command', '--check-command', [CompletionResultType]::ParameterName, 'Print the policy decision for a shell command and why (JSON with --json), then exit')
            [CompletionResult]::new('--pull', '--pull', [CompletionResultType]::ParameterName, 'Download a model of the embedded engine (a catalogue name, a URL; default: the configured one, else qwen3-1.7b) with progress, resuming and SHA-256 checks, then print its path')
            [CompletionResult]::new('--init', '--init', [CompletionResultType]::ParameterName, 'Print the shell integration script for bash, zsh or fish: eval "$(ai --init zsh)"')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'With --init: the key that asks ai, in the shell''s notation (default Alt-E: ''\ee'', ''^[e'')')
            [CompletionResult]::new('--completions', '--completions', [CompletionResultType]::ParameterName, 'Print a completion script: bash, zsh, fish, elvish or powershell')
            [CompletionResult]::new('--parse-tool-calls', '--parse-tool-calls', [CompletionResultType]::ParameterName, 'Read model text on stdin and print the tool calls found in it as JSON (FORMAT: generic, hermes, qwen, llama3, mistral, json, gemma, lfm2, granite), then exit')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Start the REPL: history, multi-line input, /commands, Ctrl-C cancels a reply')
            [CompletionResult]::new('--interactive', '--interactive', [CompletionResultType]::ParameterName, 'Start the REPL: history, multi-line input, /commands, Ctrl-C cancels a reply')
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'Widget mode: print exactly one shell command for the request, nothing else')
            [CompletionResult]::new('--no-stream', '--no-stream', [CompletionResultType]::ParameterName, 'Ask for the whole reply at once instead of streaming it')
            [CompletionResult]::new('--no-tools', '--no-tools', [CompletionResultType]::ParameterName, 'Offer no tools at all')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Approve every tool call that would ask, to run inside the sandbox (calls the policy denies still never run; leaving the sandbox takes a person at the terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Approve every tool call that would ask, to run inside the sandbox (calls the policy denies still never run; leaving the sandbox takes a person at the terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object on stdout when the run ends (schema_version 1)')
            [CompletionResult]::new('--jsonl', '--jsonl', [CompletionResultType]::ParameterName, 'Print one JSON event per line on stdout while the run goes on')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the answer: no tool traces or notices on stderr (errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the answer: no tool traces or notices on stderr (errors still appear)')
            [CompletionResult]::new('--history', '--history', [CompletionResultType]::ParameterName, 'List recent saved conversations (id, date, directory, turns, status), then exit')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Tool calls per tool, success rates, durations, iteration depth and tokens per model, from the audit log (one JSON object with --json), then exit')
            [CompletionResult]::new('--show-config', '--show-config', [CompletionResultType]::ParameterName, 'Print every effective setting and where it came from (secrets redacted), then exit')
            [CompletionResult]::new('--list-tools', '--list-tools', [CompletionResultType]::ParameterName, 'List every tool the model would see (built-in and MCP), its source and when it asks')
            [CompletionResult]::new('--list-models', '--list-models', [CompletionResultType]::ParameterName, 'List the models the configured endpoint serves, then exit')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'With --init: also record the last command and its exit status, so `ai "why did that fail?"` knows them')
            [CompletionResult]::new('--man', '--man', [CompletionResultType]::ParameterName, 'Print the man page (roff)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
