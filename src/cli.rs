//! The command line as clap sees it: plain data, no behaviour. `app` copies its setting flags
//! into `config::Flags`, which `config::resolve` turns into `Settings`; nothing else reads these
//! types.

use clap::Parser;

/// A shell-integrated AI assistant: ask a question, and the model answers, reading files when it
/// needs facts.
#[derive(Debug, Default, Parser)]
#[command(name = "ai", version, about, long_about = None)]
pub struct Cli {
    /// The request; words are joined by spaces. Piped stdin is appended as context.
    #[arg(value_name = "PROMPT", trailing_var_arg = true)]
    pub(crate) prompt: Vec<String>,

    /// Start the REPL: history, multi-line input, /commands, Ctrl-C cancels a reply.
    #[arg(help_heading = "Modes", short = 'i', long)]
    pub(crate) interactive: bool,

    /// Continue the last conversation (one-shot or REPL), or the one with this ID (see
    /// --history): `ai --resume "and the second error?"`, or `ai -i --resume`.
    #[arg(help_heading = "Modes", long, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    pub(crate) resume: Option<String>,

    /// Widget mode: print exactly one shell command for the request, nothing else.
    #[arg(help_heading = "Modes", long)]
    pub(crate) command: bool,

    /// With --command: the shell the command is for (bash, zsh, fish, ...); the widget scripts
    /// pass theirs. Default: the name of $SHELL.
    #[arg(
        help_heading = "Modes",
        long,
        value_name = "NAME",
        requires = "command"
    )]
    pub(crate) shell: Option<String>,

    /// Model name [env: SWEBASH_AI_MODEL]
    #[arg(help_heading = "Model", short = 'm', long, value_name = "MODEL")]
    pub(crate) model: Option<String>,

    /// Provider or service: anthropic, openai (alias openai-compatible), gemini, groq, openrouter,
    /// deepseek, mistral, together, lmstudio, vllm, llamacpp, ollama, ollama-openai, local
    /// [env: SWEBASH_AI_PROVIDER]
    #[arg(help_heading = "Model", long, value_name = "NAME")]
    pub(crate) provider: Option<String>,

    /// Base URL of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1
    /// [env: SWEBASH_AI_BASE_URL]
    #[arg(help_heading = "Model", long, value_name = "URL")]
    pub(crate) base_url: Option<String>,

    /// How tools are called: auto, native, or a prompt-based family (generic, hermes, qwen,
    /// llama3, mistral, json, gemma, lfm2, granite) [env: SWEBASH_AI_TOOL_FORMAT]
    #[arg(help_heading = "Model", long, value_name = "FORMAT")]
    pub(crate) tool_format: Option<String>,

    /// Ask for the whole reply at once instead of streaming it.
    #[arg(help_heading = "Model", long)]
    pub(crate) no_stream: bool,

    /// Tools to offer the model, comma-separated: fs,exec,web
    #[arg(
        help_heading = "Tools and safety",
        long,
        value_name = "LIST",
        conflicts_with = "no_tools"
    )]
    pub(crate) tools: Option<String>,

    /// Offer no tools at all.
    #[arg(help_heading = "Tools and safety", long)]
    pub(crate) no_tools: bool,

    /// Maximum model requests in one turn [env: SWEBASH_AI_TOOLS_MAX_ITER]
    #[arg(help_heading = "Tools and safety", long, value_name = "N")]
    pub(crate) max_iterations: Option<String>,

    /// Approve every tool call that would ask, to run inside the sandbox (calls the policy denies
    /// still never run; leaving the sandbox takes a person at the terminal).
    #[arg(help_heading = "Tools and safety", short = 'y', long)]
    pub(crate) yes: bool,

    /// Approve commands matching this glob pattern, e.g. 'make deploy*', to run inside the
    /// sandbox (repeatable).
    #[arg(help_heading = "Tools and safety", long, value_name = "PATTERN")]
    pub(crate) allow: Vec<String>,

    /// Sandbox for commands that run without asking: workspace (writes only under the working
    /// and temp dirs), read-only, or off [env: SWEBASH_AI_SANDBOX]
    #[arg(help_heading = "Tools and safety", long, value_name = "MODE")]
    pub(crate) sandbox: Option<String>,

    /// Print one JSON object on stdout when the run ends (schema_version 1).
    #[arg(help_heading = "Output", long, conflicts_with = "jsonl")]
    pub(crate) json: bool,

    /// Print one JSON event per line on stdout while the run goes on.
    #[arg(help_heading = "Output", long)]
    pub(crate) jsonl: bool,

    /// The final answer must be one JSON value valid against this JSON Schema file: printed
    /// alone (with --json, `answer` is the value); exit 1 if the model cannot comply
    /// [env: SWEBASH_AI_OUTPUT_SCHEMA]
    #[arg(
        help_heading = "Output",
        long,
        value_name = "FILE",
        conflicts_with_all = ["interactive", "command"]
    )]
    pub(crate) output_schema: Option<String>,

    /// Print only the answer: no tool traces or notices on stderr (errors still appear).
    #[arg(help_heading = "Output", short, long)]
    pub(crate) quiet: bool,

    /// List recent saved conversations (id, date, directory, turns, status), then exit.
    #[arg(help_heading = "Utilities", long)]
    pub(crate) history: bool,

    /// Tool calls per tool, success rates, durations, iteration depth and tokens per model,
    /// from the audit log (one JSON object with --json), then exit.
    #[arg(help_heading = "Utilities", long)]
    pub(crate) stats: bool,

    /// With --stats: only the last PERIOD, e.g. 7d, 12h, 30m.
    #[arg(
        help_heading = "Utilities",
        long,
        requires = "stats",
        value_name = "PERIOD"
    )]
    pub(crate) since: Option<String>,

    /// Print every effective setting and where it came from (secrets redacted), then exit.
    #[arg(help_heading = "Utilities", long)]
    pub(crate) show_config: bool,

    /// Print the policy decision for a shell command and why (JSON with --json), then exit.
    #[arg(help_heading = "Utilities", long, value_name = "CMD")]
    pub(crate) check_command: Option<String>,

    /// List every tool the model would see (built-in and MCP), its source and when it asks.
    #[arg(help_heading = "Utilities", long)]
    pub(crate) list_tools: bool,

    /// List the models the configured endpoint serves, then exit.
    #[arg(help_heading = "Utilities", long)]
    pub(crate) list_models: bool,

    /// Download a model of the embedded engine (a catalogue name, a URL; default: the configured
    /// one, else qwen3-1.7b) with progress, resuming and SHA-256 checks, then print its path.
    #[arg(help_heading = "Utilities", long, value_name = "MODEL", num_args = 0..=1, default_missing_value = "")]
    pub(crate) pull: Option<String>,

    /// Print the shell integration script for bash, zsh or fish: eval "$(ai --init zsh)".
    #[arg(help_heading = "Utilities", long, value_name = "SHELL")]
    pub(crate) init: Option<String>,

    /// With --init: the key that asks ai, in the shell's notation (default Alt-E: '\ee', '^[e').
    #[arg(
        help_heading = "Utilities",
        long,
        value_name = "KEY",
        requires = "init"
    )]
    pub(crate) key: Option<String>,

    /// With --init: also record the last command and its exit status, so `ai "why did that
    /// fail?"` knows them.
    #[arg(help_heading = "Utilities", long, requires = "init")]
    pub(crate) context: bool,

    /// Print a completion script: bash, zsh, fish, elvish or powershell.
    #[arg(help_heading = "Utilities", long, value_name = "SHELL")]
    pub(crate) completions: Option<String>,

    /// Print the man page (roff).
    #[arg(help_heading = "Utilities", long)]
    pub(crate) man: bool,

    /// Read model text on stdin and print the tool calls found in it as JSON (FORMAT: generic,
    /// hermes, qwen, llama3, mistral, json, gemma, lfm2, granite), then exit.
    #[arg(help_heading = "Utilities", long, value_name = "FORMAT")]
    pub(crate) parse_tool_calls: Option<String>,
}

/// What `ai` was asked to do: exactly one mode. Two mode flags together (`--history --man`,
/// `-i --list-tools`) are a usage error, never a silent choice by order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `ai PROMPT`: one question, one answer (also `--resume ID PROMPT`).
    Ask,
    /// `ai --command PROMPT`: the shell widget's one command line.
    Widget,
    Interactive,
    History,
    Stats,
    ShowConfig,
    CheckCommand(String),
    ListTools,
    ListModels,
    /// `ai --pull [MODEL]`: the model named (empty: the configured or default one).
    Pull(String),
    Init(String),
    Completions(String),
    Man,
    ParseToolCalls(String),
}

impl Cli {
    /// The one mode the flags ask for, or which of them cannot go together.
    pub(crate) fn mode(&self) -> Result<Mode, String> {
        let text = |flag: &'static str, value: &Option<String>, mode: fn(String) -> Mode| {
            value.clone().map(|v| (flag, mode(v)))
        };
        let switch = |flag: &'static str, on: bool, mode: Mode| on.then_some((flag, mode));
        let chosen: Vec<(&str, Mode)> = [
            switch("--interactive", self.interactive, Mode::Interactive),
            switch("--command", self.command, Mode::Widget),
            switch("--history", self.history, Mode::History),
            switch("--stats", self.stats, Mode::Stats),
            switch("--show-config", self.show_config, Mode::ShowConfig),
            text("--check-command", &self.check_command, Mode::CheckCommand),
            switch("--list-tools", self.list_tools, Mode::ListTools),
            switch("--list-models", self.list_models, Mode::ListModels),
            text("--pull", &self.pull, Mode::Pull),
            text("--init", &self.init, Mode::Init),
            text("--completions", &self.completions, Mode::Completions),
            switch("--man", self.man, Mode::Man),
            text(
                "--parse-tool-calls",
                &self.parse_tool_calls,
                Mode::ParseToolCalls,
            ),
        ]
        .into_iter()
        .flatten()
        .collect();
        match chosen.as_slice() {
            [] => Ok(Mode::Ask),
            [(_, mode)] => Ok(mode.clone()),
            more => {
                let flags: Vec<&str> = more.iter().map(|(flag, _)| *flag).collect();
                Err(format!(
                    "{} cannot be used together: each chooses what ai does",
                    flags.join(" and ")
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mode_flag_chooses_and_two_are_refused() {
        let parse =
            |args: &[&str]| Cli::try_parse_from(["ai"].iter().chain(args)).map(|c| c.mode());
        assert_eq!(parse(&["why"]).ok(), Some(Ok(Mode::Ask)));
        assert_eq!(parse(&["--man"]).ok(), Some(Ok(Mode::Man)));
        assert_eq!(
            parse(&["--check-command", "ls"]).ok(),
            Some(Ok(Mode::CheckCommand("ls".into())))
        );
        for conflict in [
            &["--history", "--man"][..],
            &["-i", "--list-tools"],
            &["--command", "--show-config", "x"],
            &["--init", "zsh", "--completions", "zsh"],
        ] {
            let mode = parse(conflict).ok();
            assert!(matches!(mode, Some(Err(_))), "{conflict:?}: {mode:?}");
        }
    }
}
