//! The one definition of every setting: its config-file key (the variable is `SWEBASH_AI_` and
//! the key upper-cased), its type, default, what a valid value looks like, and how its text is
//! parsed and shown. The known file keys, the known variables and the rows of `--show-config`
//! all come from this table.

use std::fmt::Display;
use std::time::Duration;

use super::layer::Resolver;
use super::{ProviderName, SandboxMode, Secret, ToolFormat, WebProvider};
use crate::error::ConfigError;
use crate::protocol::ToolChoice;

/// Defines `Values` (one typed field per row), `KEYS` (every key, in order) and
/// `Values::resolve` (each row through the resolver, in order: the order of `--show-config`).
/// A row is `key: Type = how(args);` where `how` is a method of `Resolver`: `get(default,
/// expected, parse, show)`, `text()` or `secret()`.
macro_rules! settings_table {
    ($( $(#[$doc:meta])* $key:ident : $ty:ty = $how:ident ( $($arg:expr),* $(,)? ); )*) => {
        /// Every value of the table, typed, before `resolve` groups them into `Settings`.
        pub(super) struct Values {
            $( $(#[$doc])* pub(crate) $key: $ty, )*
        }

        /// Every key of the table, in `--show-config` order.
        pub(crate) const KEYS: &[&str] = &[ $( stringify!($key) ),* ];

        impl Values {
            pub(super) fn resolve(r: &mut Resolver<'_>) -> Result<Values, ConfigError> {
                Ok(Values {
                    $( $key: r.$how(stringify!($key) $(, $arg)*)?, )*
                })
            }
        }
    };
}

const BOOL: &str = "true or false";
const SECONDS: &str = "a number of seconds from 0.1 to 3600";

settings_table! {
    tools_fs: bool = get(true, BOOL, parse_bool, show);
    tools_exec: bool = get(true, BOOL, parse_bool, show);
    tools_web: bool = get(true, BOOL, parse_bool, show);
    /// Ask before dangerous operations.
    tools_confirm: bool = get(true, BOOL, parse_bool, show);
    tools_max_iter: u32 = get(10, "a whole number from 1 to 100", |s| in_range(s, 1, 100), show);
    tools_max_calls: u32 =
        get(10, "a whole number from 1 to 1000", |s| in_range(s, 1, 1000), show);
    fs_max_size: u64 = get(
        1_048_576,
        "a number of bytes from 1 to 1073741824",
        |s| s.parse::<u64>().ok().filter(|n| (1..=1 << 30).contains(n)),
        show,
    );
    fs_roots: Vec<String> = get(
        vec!["cwd".to_string(), "tmp".to_string()],
        "a `:`-separated list of directories (`cwd` and `tmp` stand for the working and temp dirs)",
        parse_roots,
        |v: &Vec<String>| v.join(":"),
    );
    /// Seconds.
    exec_timeout: u32 = get(30, "a number of seconds from 1 to 300", |s| in_range(s, 1, 300), show);
    web_provider: WebProvider = get(
        WebProvider::DuckDuckGo,
        "duckduckgo, searxng or brave",
        WebProvider::parse,
        |w: &WebProvider| w.name().to_string(),
    );
    web_url: Option<String> = text();
    web_api_key: Option<Secret> = secret();
    sandbox: SandboxMode = get(
        SandboxMode::Workspace,
        "workspace, read-only or off",
        SandboxMode::parse,
        |m: &SandboxMode| m.name().to_string(),
    );
    /// Variables sandboxed commands get besides the built-in allowlist.
    sandbox_env: Vec<String> = get(
        Vec::new(),
        "a comma-separated list of variable names",
        parse_names,
        |v: &Vec<String>| v.join(","),
    );
    /// Directories of the home that sandboxed commands may read besides the toolchains'.
    sandbox_read: Vec<String> = get(
        Vec::new(),
        "a `:`-separated list of directories",
        parse_roots,
        |v: &Vec<String>| v.join(":"),
    );
    provider: Option<ProviderName> = get(
        None,
        &ProviderName::expected(),
        |s| ProviderName::parse(s).map(Some),
        |p: &Option<ProviderName>| p.map_or("", ProviderName::name).to_string(),
    );
    model: Option<String> = text();
    base_url: Option<String> = get(None, "an http:// or https:// URL", parse_url, show_text);
    api_key: Option<Secret> = secret();
    api_key_cmd: Option<String> = text();
    tool_format: ToolFormat = get(
        ToolFormat::Auto,
        "auto, native, generic, hermes, qwen, llama3, mistral, json, gemma, lfm2 or granite",
        ToolFormat::parse,
        |f: &ToolFormat| f.name().to_string(),
    );
    tool_choice: ToolChoice = get(
        ToolChoice::Auto,
        "auto, required, none or a tool name",
        parse_tool_choice,
        show_tool_choice,
    );
    constrain: bool = get(false, BOOL, parse_bool, show);
    model_path: Option<String> = text();
    model_url: Option<String> = text();
    model_sha256: Option<String> = get(None, "64 hexadecimal digits", parse_sha256, show_text);
    local_ctx: u32 =
        get(4096, "a number of tokens from 256 to 131072", |s| in_range(s, 256, 131_072), show);
    /// One per core, at most 4, by default.
    local_threads: u32 =
        get(default_threads(), "a number of threads from 1 to 64", |s| in_range(s, 1, 64), show);
    mcp: bool = get(true, "on or off", parse_bool, |b: &bool| {
        if *b { "on" } else { "off" }.to_string()
    });
    /// A JSON Schema file the final answer must match (`--output-schema`).
    output_schema: Option<String> = text();
    /// Whether AGENTS.md files are read into the instructions.
    project_doc: bool = get(true, "on or off", parse_bool, |b: &bool| {
        if *b { "on" } else { "off" }.to_string()
    });
    http_connect_timeout: Duration =
        get(Duration::from_secs(10), SECONDS, parse_seconds, show_seconds);
    http_first_byte_timeout: Duration =
        get(Duration::from_secs(30), SECONDS, parse_seconds, show_seconds);
    http_idle_timeout: Duration =
        get(Duration::from_secs(60), SECONDS, parse_seconds, show_seconds);
    http_timeout: Duration = get(Duration::from_secs(600), SECONDS, parse_seconds, show_seconds);
    http_retries: u32 = get(3, "a whole number from 0 to 10", |s| in_range(s, 0, 10), show);
    /// `refuse`: a widget suggestion the policy would ask for or deny is not put on the line.
    widget_unsafe: bool = get(false, "warn or refuse", |s| match s {
        "warn" => Some(false),
        "refuse" => Some(true),
        _ => None,
    }, |b: &bool| if *b { "refuse" } else { "warn" }.to_string());
    history_keep: u32 =
        get(500, "a whole number from 1 to 100000", |s| in_range(s, 1, 100_000), show);
}

fn show<T: Display>(value: &T) -> String {
    value.to_string()
}

fn show_text(value: &Option<String>) -> String {
    value.clone().unwrap_or_default()
}

fn default_threads() -> u32 {
    std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4) as u32
}

pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn in_range(text: &str, min: u32, max: u32) -> Option<u32> {
    text.parse::<u32>().ok().filter(|n| (min..=max).contains(n))
}

fn parse_roots(text: &str) -> Option<Vec<String>> {
    let roots: Vec<String> = text
        .split(':')
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect();
    (!roots.is_empty()).then_some(roots)
}

fn parse_names(text: &str) -> Option<Vec<String>> {
    let names: Vec<String> = text
        .split([',', ' '])
        .filter(|n| !n.is_empty())
        .map(String::from)
        .collect();
    names
        .iter()
        .all(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(names)
}

fn parse_url(text: &str) -> Option<Option<String>> {
    (text.starts_with("http://") || text.starts_with("https://")).then(|| Some(text.to_string()))
}

fn parse_sha256(text: &str) -> Option<Option<String>> {
    (text.len() == 64 && text.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| Some(text.to_ascii_lowercase()))
}

fn parse_seconds(text: &str) -> Option<Duration> {
    let secs: f64 = text.parse().ok()?;
    (0.1..=3600.0)
        .contains(&secs)
        .then(|| Duration::from_secs_f64(secs))
}

fn show_seconds(duration: &Duration) -> String {
    format!("{}", duration.as_secs_f64())
}

pub(super) fn parse_tool_choice(text: &str) -> Option<ToolChoice> {
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

fn show_tool_choice(choice: &ToolChoice) -> String {
    match choice {
        ToolChoice::Auto => "auto".into(),
        ToolChoice::Required => "required".into(),
        ToolChoice::None => "none".into(),
        ToolChoice::Named(name) => name.clone(),
    }
}
