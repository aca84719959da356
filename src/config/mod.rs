//! Settings: every knob of DESIGN §4 resolved once, flags > environment > config file > defaults.
//! Below this module nothing reads env vars or clap types again.

mod layer;
#[cfg(test)]
mod props;
mod unknown;

use std::path::PathBuf;
use std::time::Duration;

pub use layer::{
    ENV_PREFIX, Env, FileLayer, McpServerConfig, PolicyConfig, Secret, Shown, Source, env_name,
};

use crate::cli::Cli;
use crate::error::ConfigError;
use crate::protocol::ToolChoice;
use layer::Resolver;

/// Where the answer and events go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    Plain,
    Json,
    Jsonl,
    /// `--command`: one shell command line, nothing else.
    Command,
}

/// How tool calls are exchanged with the model (DESIGN §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolFormat {
    Auto,
    Native,
    Generic,
    Hermes,
    Qwen,
    Llama3,
    Mistral,
    Json,
}

impl ToolFormat {
    const NAMES: [(&'static str, ToolFormat); 8] = [
        ("auto", ToolFormat::Auto),
        ("native", ToolFormat::Native),
        ("generic", ToolFormat::Generic),
        ("hermes", ToolFormat::Hermes),
        ("qwen", ToolFormat::Qwen),
        ("llama3", ToolFormat::Llama3),
        ("mistral", ToolFormat::Mistral),
        ("json", ToolFormat::Json),
    ];

    pub fn parse(text: &str) -> Option<Self> {
        let lower = text.to_ascii_lowercase();
        Self::NAMES
            .iter()
            .find(|(name, _)| *name == lower)
            .map(|(_, f)| *f)
    }

    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("auto", |(name, _)| name)
    }
}

/// How much a sandboxed command may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxMode {
    /// No sandbox.
    Off,
    /// Reads anywhere, writes nowhere but `/dev/null` and the terminal.
    ReadOnly,
    /// Reads anywhere, writes under the working directory and temp dirs.
    Workspace,
}

impl SandboxMode {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "off" => Some(SandboxMode::Off),
            "read-only" => Some(SandboxMode::ReadOnly),
            "workspace" => Some(SandboxMode::Workspace),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Workspace => "workspace",
        }
    }
}

/// Settings of the embedded llama.cpp engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSettings {
    pub model_path: Option<PathBuf>,
    pub model_url: Option<String>,
    pub model_sha256: Option<String>,
    pub ctx: u32,
    /// 0 means one per core, at most 4.
    pub threads: u32,
    /// Where a downloaded default model is kept.
    pub models_dir: Option<PathBuf>,
}

/// Which built-in tools are offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolToggles {
    pub fs: bool,
    pub exec: bool,
    pub web: bool,
}

/// Timeouts and retries of HTTP requests to the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpSettings {
    pub connect_timeout: Duration,
    /// Longest silence allowed between two chunks of a streamed reply.
    pub idle_timeout: Duration,
    /// Longest a whole request may take.
    pub request_timeout: Duration,
    /// Retries after the first attempt, on 429, 5xx and connection errors.
    pub retries: u32,
}

/// Every effective setting, typed.
#[derive(Debug, Clone)]
pub struct Settings {
    pub output: OutputMode,
    pub quiet: bool,
    pub stream: bool,
    pub tools: ToolToggles,
    pub confirm: bool,
    pub max_iterations: u32,
    pub max_tool_calls: u32,
    pub fs_max_size: u64,
    pub fs_roots: Vec<String>,
    pub exec_timeout: Duration,
    pub web_provider: String,
    pub web_url: Option<String>,
    pub web_api_key: Option<Secret>,
    pub sandbox: SandboxMode,
    /// `--yes`: approve what would ask.
    pub approve_all: bool,
    /// `--allow PATTERN`s.
    pub allow: Vec<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub api_key: Option<Secret>,
    pub api_key_cmd: Option<String>,
    pub tool_format: ToolFormat,
    pub tool_choice: ToolChoice,
    pub constrain: bool,
    pub mcp: bool,
    /// `$XDG_CACHE_HOME/swebash-ai/mcp` (or under `~/.cache`): the MCP tool lists.
    pub cache_dir: Option<PathBuf>,
    /// The embedded engine (`--provider local`): the GGUF file, where to fetch the default one,
    /// its SHA-256, the context size and the threads.
    pub local: LocalSettings,
    /// The enabled MCP servers (none when `SWEBASH_AI_MCP=off`).
    pub mcp_servers: Vec<McpServerConfig>,
    /// The `[policy]` rules of the config file.
    pub policy: PolicyConfig,
    pub http: HttpSettings,
    /// Each value with its source, for `--show-config`.
    pub shown: Vec<Shown>,
    /// Config file keys we do not know (typos are worth a warning).
    pub unknown_file_keys: Vec<String>,
    /// Warnings about `SWEBASH_AI_*` variables that are no setting (a typo, most likely).
    pub unknown_env: Vec<String>,
    /// How many saved conversations are kept (`SWEBASH_AI_HISTORY_KEEP`).
    pub history_keep: u32,
}

/// The config file's path: `$XDG_CONFIG_HOME/swebash-ai/config.toml`, else `~/.config/...`.
/// (directories' macOS default, `~/Library/Application Support`, surprises terminal users.)
pub fn config_path(env: &Env) -> Option<PathBuf> {
    let base = match env.get("XDG_CONFIG_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => directories::BaseDirs::new()?.home_dir().join(".config"),
    };
    Some(base.join("swebash-ai").join("config.toml"))
}

const KNOWN_FILE_KEYS: &[&str] = &[
    "tools_fs",
    "tools_exec",
    "tools_web",
    "tools_confirm",
    "tools_max_iter",
    "tools_max_calls",
    "fs_max_size",
    "fs_roots",
    "exec_timeout",
    "web_provider",
    "web_url",
    "web_api_key",
    "sandbox",
    "provider",
    "model",
    "base_url",
    "api_key",
    "api_key_cmd",
    "tool_format",
    "tool_choice",
    "constrain",
    "mcp",
    "http_connect_timeout",
    "http_idle_timeout",
    "http_timeout",
    "http_retries",
    "model_path",
    "model_sha256",
    "model_url",
    "local_ctx",
    "local_threads",
    "history_keep",
];

/// Merges flags > env > file > defaults into `Settings`.
pub fn resolve(cli: &Cli, env: &Env, file: &FileLayer) -> Result<Settings, ConfigError> {
    let mut r = Resolver::new(env, file);
    let tool_flags = tool_flag_values(cli)?;
    for (key, value) in tool_flags {
        r.flag(key, "--tools", value);
    }
    r.flag(
        "tools_max_iter",
        "--max-iterations",
        cli.max_iterations.clone(),
    );
    r.flag("provider", "--provider", cli.provider.clone());
    r.flag("sandbox", "--sandbox", cli.sandbox.clone());
    r.flag("tool_format", "--tool-format", cli.tool_format.clone());
    r.flag("model", "--model", cli.model.clone());
    r.flag("base_url", "--base-url", cli.base_url.clone());

    let show_bool = |b: &bool| b.to_string();
    let show_num = |n: &u32| n.to_string();
    let bool_expected = "true or false";
    let tools = ToolToggles {
        fs: r.get("tools_fs", true, bool_expected, parse_bool, show_bool)?,
        exec: r.get("tools_exec", true, bool_expected, parse_bool, show_bool)?,
        web: r.get("tools_web", true, bool_expected, parse_bool, show_bool)?,
    };
    let confirm = r.get("tools_confirm", true, bool_expected, parse_bool, show_bool)?;
    let max_iterations = r.get(
        "tools_max_iter",
        10,
        "a whole number from 1 to 100",
        |s| parse_in_range(s, 1, 100),
        show_num,
    )?;
    let max_tool_calls = r.get(
        "tools_max_calls",
        10,
        "a whole number from 1 to 1000",
        |s| parse_in_range(s, 1, 1000),
        show_num,
    )?;
    let fs_max_size = r.get(
        "fs_max_size",
        1_048_576u64,
        "a number of bytes from 1 to 1073741824",
        |s| s.parse::<u64>().ok().filter(|n| (1..=1 << 30).contains(n)),
        |n| n.to_string(),
    )?;
    let fs_roots = r.get(
        "fs_roots",
        vec!["cwd".to_string(), "tmp".to_string()],
        "a `:`-separated list of directories (`cwd` and `tmp` stand for the working and temp dirs)",
        |s| {
            let roots: Vec<String> = s
                .split(':')
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect();
            (!roots.is_empty()).then_some(roots)
        },
        |v| v.join(":"),
    )?;
    let exec_timeout = r.get(
        "exec_timeout",
        30,
        "a number of seconds from 1 to 300",
        |s| parse_in_range(s, 1, 300),
        show_num,
    )?;
    let web_provider = r.get(
        "web_provider",
        "duckduckgo".to_string(),
        "duckduckgo, searxng or brave",
        |s| {
            let s = s.to_ascii_lowercase();
            ["duckduckgo", "searxng", "brave"]
                .contains(&s.as_str())
                .then_some(s)
        },
        String::clone,
    )?;
    let web_url = r.text("web_url");
    let web_api_key = r
        .secret("web_api_key")
        .or_else(|| env.get("BRAVE_API_KEY").map(Secret::new));
    let sandbox = r.get(
        "sandbox",
        SandboxMode::Workspace,
        "workspace, read-only or off",
        SandboxMode::parse,
        |m| m.name().to_string(),
    )?;
    let provider = r.text("provider");
    let model = r.text("model");
    let base_url = r.text("base_url");
    let api_key = r.secret("api_key");
    let api_key_cmd = r.text("api_key_cmd");
    let tool_format = r.get(
        "tool_format",
        ToolFormat::Auto,
        "auto, native, generic, hermes, qwen, llama3, mistral or json",
        ToolFormat::parse,
        |f| f.name().to_string(),
    )?;
    let tool_choice = r.get(
        "tool_choice",
        ToolChoice::Auto,
        "auto, required, none or a tool name",
        parse_tool_choice,
        |c| match c {
            ToolChoice::Auto => "auto".into(),
            ToolChoice::Required => "required".into(),
            ToolChoice::None => "none".into(),
            ToolChoice::Named(name) => name.clone(),
        },
    )?;
    let constrain = r.get("constrain", false, bool_expected, parse_bool, show_bool)?;
    let model_path = r.text("model_path").map(PathBuf::from);
    let model_url = r.text("model_url");
    let model_sha256 = r.get(
        "model_sha256",
        None,
        "64 hexadecimal digits",
        |s| {
            (s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit()))
                .then(|| Some(s.to_ascii_lowercase()))
        },
        |v| v.clone().unwrap_or_default(),
    )?;
    let local_ctx = r.get(
        "local_ctx",
        4096,
        "a number of tokens from 256 to 131072",
        |s| parse_in_range(s, 256, 131_072),
        show_num,
    )?;
    let cores = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4) as u32;
    let local_threads = r.get(
        "local_threads",
        cores,
        "a number of threads from 1 to 64",
        |s| parse_in_range(s, 1, 64),
        show_num,
    )?;
    let mcp = r.get("mcp", true, "on or off", parse_bool, |b| {
        if *b { "on" } else { "off" }.to_string()
    })?;
    let seconds = |key: &str, default: u64, r: &mut Resolver| {
        r.get(
            key,
            Duration::from_secs(default),
            "a number of seconds from 0.1 to 3600",
            parse_seconds,
            |d| format!("{}", d.as_secs_f64()),
        )
    };
    let http = HttpSettings {
        connect_timeout: seconds("http_connect_timeout", 10, &mut r)?,
        idle_timeout: seconds("http_idle_timeout", 60, &mut r)?,
        request_timeout: seconds("http_timeout", 600, &mut r)?,
        retries: r.get(
            "http_retries",
            3,
            "a whole number from 0 to 10",
            |s| parse_in_range(s, 0, 10),
            show_num,
        )?,
    };

    let history_keep = r.get(
        "history_keep",
        500,
        "a whole number from 1 to 100000",
        |s| parse_in_range(s, 1, 100_000),
        show_num,
    )?;
    let output = if cli.command {
        OutputMode::Command
    } else if cli.json {
        OutputMode::Json
    } else if cli.jsonl {
        OutputMode::Jsonl
    } else {
        OutputMode::Plain
    };
    let unknown_file_keys = file
        .keys()
        .filter(|k| !KNOWN_FILE_KEYS.contains(k) && *k != "mcp_servers" && *k != "policy")
        .map(String::from)
        .collect();
    Ok(Settings {
        output,
        quiet: cli.quiet,
        stream: !cli.no_stream,
        tools,
        confirm,
        max_iterations,
        max_tool_calls,
        fs_max_size,
        fs_roots,
        exec_timeout: Duration::from_secs(u64::from(exec_timeout)),
        web_provider,
        web_url,
        web_api_key,
        sandbox,
        approve_all: cli.yes,
        allow: cli.allow.clone(),
        provider,
        model,
        base_url,
        api_key,
        api_key_cmd,
        tool_format,
        tool_choice,
        constrain,
        mcp,
        local: LocalSettings {
            model_path,
            model_url,
            model_sha256,
            ctx: local_ctx,
            threads: local_threads,
            models_dir: cache_base(env).map(|d| d.join("swebash-ai").join("models")),
        },
        cache_dir: cache_base(env).map(|d| d.join("swebash-ai").join("mcp")),
        policy: file.policy.clone(),
        mcp_servers: if mcp {
            file.mcp_servers
                .iter()
                .filter(|s| s.enabled)
                .cloned()
                .collect()
        } else {
            Vec::new()
        },
        http,
        shown: r.shown,
        unknown_file_keys,
        unknown_env: unknown::unknown_env_vars(env),
        history_keep,
    })
}

/// `$XDG_CACHE_HOME`, else `~/.cache`.
fn cache_base(env: &Env) -> Option<PathBuf> {
    env.get("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env.get("HOME").map(|h| PathBuf::from(h).join(".cache")))
}

/// `--tools LIST` and `--no-tools` as flag values for the three toggles.
fn tool_flag_values(cli: &Cli) -> Result<[(&'static str, Option<String>); 3], ConfigError> {
    let chosen: Option<Vec<&str>> = if cli.no_tools {
        Some(Vec::new())
    } else if let Some(list) = &cli.tools {
        let mut names = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let key = match name {
                "fs" | "filesystem" => "fs",
                "exec" | "execute_command" => "exec",
                "web" | "web_search" => "web",
                other => {
                    return Err(ConfigError::Invalid {
                        name: "--tools".into(),
                        value: other.into(),
                        expected: "a comma-separated list of fs, exec, web".into(),
                    });
                }
            };
            names.push(key);
        }
        Some(names)
    } else {
        None
    };
    let value = |tool: &str| {
        chosen
            .as_ref()
            .map(|names| names.contains(&tool).to_string())
    };
    Ok([
        ("tools_fs", value("fs")),
        ("tools_exec", value("exec")),
        ("tools_web", value("web")),
    ])
}

pub fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn parse_in_range(text: &str, min: u32, max: u32) -> Option<u32> {
    text.parse::<u32>().ok().filter(|n| (min..=max).contains(n))
}

fn parse_seconds(text: &str) -> Option<Duration> {
    let secs: f64 = text.parse().ok()?;
    (0.1..=3600.0)
        .contains(&secs)
        .then(|| Duration::from_secs_f64(secs))
}

fn parse_tool_choice(text: &str) -> Option<ToolChoice> {
    Some(match text {
        "auto" => ToolChoice::Auto,
        "required" => ToolChoice::Required,
        "none" => ToolChoice::None,
        name if name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && !name.is_empty() =>
        {
            ToolChoice::Named(name.to_string())
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use std::path::Path;

    fn cli(args: &[&str]) -> Cli {
        let mut argv = vec!["ai"];
        argv.extend_from_slice(args);
        Cli::try_parse_from(argv).unwrap_or_default()
    }

    fn file(text: &str) -> FileLayer {
        FileLayer::parse(text, Path::new("/cfg/config.toml")).unwrap_or_default()
    }

    fn shown<'a>(s: &'a Settings, name: &str) -> Option<&'a Shown> {
        s.shown.iter().find(|x| x.env_name == name)
    }

    #[test]
    fn flag_beats_env_beats_file_beats_default() {
        let env = Env::from_pairs([
            ("SWEBASH_AI_TOOLS_MAX_ITER", "7"),
            ("SWEBASH_AI_MODEL", "env-model"),
        ]);
        let file = file("tools_max_iter = 5\nmodel = \"file-model\"\ntools_max_calls = 3\n");
        let s = resolve(&cli(&["--max-iterations", "9", "q"]), &env, &file).ok();
        let s = s.as_ref();
        assert_eq!(s.map(|s| s.max_iterations), Some(9));
        assert_eq!(
            s.and_then(|s| s.model.clone()).as_deref(),
            Some("env-model")
        );
        assert_eq!(s.map(|s| s.max_tool_calls), Some(3));
        assert_eq!(s.map(|s| s.fs_max_size), Some(1_048_576));
        let sources: Vec<Source> = [
            "SWEBASH_AI_TOOLS_MAX_ITER",
            "SWEBASH_AI_MODEL",
            "SWEBASH_AI_TOOLS_MAX_CALLS",
            "SWEBASH_AI_FS_MAX_SIZE",
        ]
        .iter()
        .filter_map(|n| s.and_then(|s| shown(s, n)).map(|x| x.source))
        .collect();
        assert_eq!(
            sources,
            vec![Source::Flag, Source::Env, Source::File, Source::Default]
        );
    }

    #[test]
    fn invalid_env_value_names_the_variable() {
        let env = Env::from_pairs([("SWEBASH_AI_TOOLS_MAX_ITER", "abc")]);
        let err = resolve(&cli(&[]), &env, &FileLayer::default()).err();
        assert!(matches!(
            err,
            Some(ConfigError::Invalid { ref name, ref value, .. })
                if name == "SWEBASH_AI_TOOLS_MAX_ITER" && value == "abc"
        ));
    }

    #[test]
    fn invalid_file_value_names_the_key_and_file() {
        let err = resolve(&cli(&[]), &Env::default(), &file("tools_fs = \"maybe\"")).err();
        let message = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("`tools_fs` in /cfg/config.toml"),
            "{message}"
        );
    }

    #[test]
    fn tools_flag_overrides_each_toggle_and_no_tools_disables_all() {
        let env = Env::from_pairs([("SWEBASH_AI_TOOLS_WEB", "true")]);
        let s = resolve(&cli(&["--tools", "fs,exec"]), &env, &FileLayer::default()).ok();
        assert_eq!(
            s.map(|s| s.tools),
            Some(ToolToggles {
                fs: true,
                exec: true,
                web: false
            })
        );
        let s = resolve(&cli(&["--no-tools"]), &env, &FileLayer::default()).ok();
        assert_eq!(
            s.map(|s| s.tools),
            Some(ToolToggles {
                fs: false,
                exec: false,
                web: false
            })
        );
        assert!(resolve(&cli(&["--tools", "fs,rocket"]), &env, &FileLayer::default()).is_err());
    }

    #[test]
    fn secrets_are_redacted_in_show_config() {
        let env = Env::from_pairs([("SWEBASH_AI_API_KEY", "sk-very-secret")]);
        let s = resolve(&cli(&[]), &env, &FileLayer::default()).ok();
        let line = s
            .as_ref()
            .and_then(|s| shown(s, "SWEBASH_AI_API_KEY"))
            .map(|x| x.value.clone());
        assert_eq!(line.as_deref(), Some("<redacted>"));
        assert_eq!(
            s.and_then(|s| s.api_key)
                .map(|k| k.expose().to_string())
                .as_deref(),
            Some("sk-very-secret")
        );
    }

    #[test]
    fn tool_choice_accepts_keywords_and_tool_names() {
        assert_eq!(parse_tool_choice("required"), Some(ToolChoice::Required));
        assert_eq!(
            parse_tool_choice("filesystem"),
            Some(ToolChoice::Named("filesystem".into()))
        );
        assert_eq!(parse_tool_choice("two words"), None);
    }

    #[test]
    fn malformed_config_file_is_an_error_naming_it() {
        let err = FileLayer::parse("tools_fs = ", Path::new("/cfg/config.toml")).err();
        assert!(
            matches!(err, Some(ConfigError::File { ref path, .. }) if path == "/cfg/config.toml")
        );
    }
}
