complete -c ai -l resume -d 'Continue the last conversation (one-shot or REPL), or the one with this ID (see --history): `ai --resume "and the second error?"`, or `ai -i --resume`' -r
complete -c ai -l shell -d 'With --command: the shell the command is for (bash, zsh, fish, ...); the widget scripts pass theirs. Default: the name of $SHELL' -r
complete -c ai -s m -l model -d 'Model name [env: SWEBASH_AI_MODEL]' -r
complete -c ai -l provider -d 'Provider or service: anthropic, openai (alias openai-compatible), gemini, groq, openrouter, deepseek, mistral, together, lmstudio, vllm, llamacpp, ollama, ollama-openai, local [env: SWEBASH_AI_PROVIDER]' -r
complete -c ai -l base-url -d 'Base URL of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 [env: SWEBASH_AI_BASE_URL]' -r
complete -c ai -l tool-format -d 'How tools are called: auto, native, or a prompt-based family (generic, hermes, qwen, llama3, mistral, json, gemma, lfm2, granite) [env: SWEBASH_AI_TOOL_FORMAT]' -r
complete -c ai -l tools -d 'Tools to offer the model, comma-separated: fs,exec,web' -r
complete -c ai -l max-iterations -d 'Maximum model requests in one turn [env: SWEBASH_AI_TOOLS_MAX_ITER]' -r
complete -c ai -l allow -d 'Approve commands matching this glob pattern, e.g. \'make deploy*\', to run inside the sandbox (repeatable)' -r
complete -c ai -l sandbox -d 'Sandbox for commands that run without asking: workspace (writes only under the working and temp dirs), read-only, or off [env: SWEBASH_AI_SANDBOX]' -r
complete -c ai -l output-schema -d 'The final answer must be one JSON value valid against this JSON Schema file: printed alone (with --json, `answer` is the value); exit 1 if the model cannot comply [env: SWEBASH_AI_OUTPUT_SCHEMA]' -r
complete -c ai -l since -d 'With --stats: only the last PERIOD, e.g. 7d, 12h, 30m' -r
complete -c ai -l check-command -d 'Print the policy decision for a shell command and why (JSON with --json), then exit' -r
complete -c ai -l pull -d 'Download a model of the embedded engine (a catalogue name, a URL; default: the configured one, else qwen3-1.7b) with progress, resuming and SHA-256 checks, then print its path' -r
complete -c ai -l init -d 'Print the shell integration script for bash, zsh or fish: eval "$(ai --init zsh)"' -r
complete -c ai -l key -d 'With --init: the key that asks ai, in the shell\'s notation (default Alt-E: \'\\ee\', \'^[e\')' -r
complete -c ai -l completions -d 'Print a completion script: bash, zsh, fish, elvish or powershell' -r
complete -c ai -l parse-tool-calls -d 'Read model text on stdin and print the tool calls found in it as JSON (FORMAT: generic, hermes, qwen, llama3, mistral, json, gemma, lfm2, granite), then exit' -r
complete -c ai -s i -l interactive -d 'Start the REPL: history, multi-line input, /commands, Ctrl-C cancels a reply'
complete -c ai -l command -d 'Widget mode: print exactly one shell command for the request, nothing else'
complete -c ai -l no-stream -d 'Ask for the whole reply at once instead of streaming it'
complete -c ai -l no-tools -d 'Offer no tools at all'
complete -c ai -s y -l yes -d 'Approve every tool call that would ask, to run inside the sandbox (calls the policy denies still never run; leaving the sandbox takes a person at the terminal)'
complete -c ai -l json -d 'Print one JSON object on stdout when the run ends (schema_version 1)'
complete -c ai -l jsonl -d 'Print one JSON event per line on stdout while the run goes on'
complete -c ai -s q -l quiet -d 'Print only the answer: no tool traces or notices on stderr (errors still appear)'
complete -c ai -l history -d 'List recent saved conversations (id, date, directory, turns, status), then exit'
complete -c ai -l stats -d 'Tool calls per tool, success rates, durations, iteration depth and tokens per model, from the audit log (one JSON object with --json), then exit'
complete -c ai -l show-config -d 'Print every effective setting and where it came from (secrets redacted), then exit'
complete -c ai -l list-tools -d 'List every tool the model would see (built-in and MCP), its source and when it asks'
complete -c ai -l list-models -d 'List the models the configured endpoint serves, then exit'
complete -c ai -l context -d 'With --init: also record the last command and its exit status, so `ai "why did that fail?"` knows them'
complete -c ai -l man -d 'Print the man page (roff)'
complete -c ai -s h -l help -d 'Print help'
complete -c ai -s V -l version -d 'Print version'
