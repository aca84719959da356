#compdef ai

autoload -U is-at-least

_ai() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'--resume=[Continue the last conversation (one-shot or REPL), or the one with this ID (see --history)\: \`ai --resume "and the second error?"\`, or \`ai -i --resume\`]::ID:_default' \
'--shell=[With --command\: the shell the command is for (bash, zsh, fish, ...); the widget scripts pass theirs. Default\: the name of \$SHELL]:NAME:_default' \
'-m+[Model name \[env\: SWEBASH_AI_MODEL\]]:MODEL:_default' \
'--model=[Model name \[env\: SWEBASH_AI_MODEL\]]:MODEL:_default' \
'--provider=[Provider or service\: anthropic, openai (alias openai-compatible), gemini, groq, openrouter, deepseek, mistral, together, lmstudio, vllm, llamacpp, ollama, ollama-openai, local \[env\: SWEBASH_AI_PROVIDER\]]:NAME:_default' \
'--base-url=[Base URL of an OpenAI-compatible endpoint, e.g. http\://127.0.0.1\:8080/v1 \[env\: SWEBASH_AI_BASE_URL\]]:URL:_default' \
'--tool-format=[How tools are called\: auto, native, or a prompt-based family (generic, hermes, qwen, llama3, mistral, json, gemma, lfm2, granite) \[env\: SWEBASH_AI_TOOL_FORMAT\]]:FORMAT:_default' \
'(--no-tools)--tools=[Tools to offer the model, comma-separated\: fs,exec,web]:LIST:_default' \
'--max-iterations=[Maximum model requests in one turn \[env\: SWEBASH_AI_TOOLS_MAX_ITER\]]:N:_default' \
'*--allow=[Approve commands matching this glob pattern, e.g. '\''make deploy*'\'', to run inside the sandbox (repeatable)]:PATTERN:_default' \
'--sandbox=[Sandbox for commands that run without asking\: workspace (writes only under the working and temp dirs), read-only, or off \[env\: SWEBASH_AI_SANDBOX\]]:MODE:_default' \
'(-i --interactive --command)--output-schema=[The final answer must be one JSON value valid against this JSON Schema file\: printed alone (with --json, \`answer\` is the value); exit 1 if the model cannot comply \[env\: SWEBASH_AI_OUTPUT_SCHEMA\]]:FILE:_default' \
'--since=[With --stats\: only the last PERIOD, e.g. 7d, 12h, 30m]:PERIOD:_default' \
'--check-command=[Print the policy decision for a shell command and why (JSON with --json), then exit]:CMD:_default' \
'--pull=[Download a model of the embedded engine (a catalogue name, a URL; default\: the configured one, else qwen3-1.7b) with progress, resuming and SHA-256 checks, then print its path]::MODEL:_default' \
'--init=[Print the shell integration script for bash, zsh or fish\: eval "\$(ai --init zsh)"]:SHELL:_default' \
'--key=[With --init\: the key that asks ai, in the shell'\''s notation (default Alt-E\: '\''\\ee'\'', '\''^\[e'\'')]:KEY:_default' \
'--completions=[Print a completion script\: bash, zsh, fish, elvish or powershell]:SHELL:_default' \
'--parse-tool-calls=[Read model text on stdin and print the tool calls found in it as JSON (FORMAT\: generic, hermes, qwen, llama3, mistral, json, gemma, lfm2, granite), then exit]:FORMAT:_default' \
'-i[Start the REPL\: history, multi-line input, /commands, Ctrl-C cancels a reply]' \
'--interactive[Start the REPL\: history, multi-line input, /commands, Ctrl-C cancels a reply]' \
'--command[Widget mode\: print exactly one shell command for the request, nothing else]' \
'--no-stream[Ask for the whole reply at once instead of streaming it]' \
'--no-tools[Offer no tools at all]' \
'-y[Approve every tool call that would ask, to run inside the sandbox (calls the policy denies still never run; leaving the sandbox takes a person at the terminal)]' \
'--yes[Approve every tool call that would ask, to run inside the sandbox (calls the policy denies still never run; leaving the sandbox takes a person at the terminal)]' \
'(--jsonl)--json[Print one JSON object on stdout when the run ends (schema_version 1)]' \
'--jsonl[Print one JSON event per line on stdout while the run goes on]' \
'-q[Print only the answer\: no tool traces or notices on stderr (errors still appear)]' \
'--quiet[Print only the answer\: no tool traces or notices on stderr (errors still appear)]' \
'--history[List recent saved conversations (id, date, directory, turns, status), then exit]' \
'--stats[Tool calls per tool, success rates, durations, iteration depth and tokens per model, from the audit log (one JSON object with --json), then exit]' \
'--show-config[Print every effective setting and where it came from (secrets redacted), then exit]' \
'--list-tools[List every tool the model would see (built-in and MCP), its source and when it asks]' \
'--list-models[List the models the configured endpoint serves, then exit]' \
'--context[With --init\: also record the last command and its exit status, so \`ai "why did that fail?"\` knows them]' \
'--man[Print the man page (roff)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
'*::prompt -- The request; words are joined by spaces. Piped stdin is appended as context:_default' \
&& ret=0
}

(( $+functions[_ai_commands] )) ||
_ai_commands() {
    local commands; commands=()
    _describe -t commands 'ai commands' commands "$@"
}

if [ "$funcstack[1]" = "_ai" ]; then
    _ai "$@"
else
    compdef _ai ai
fi
