//! Settings: every knob of DESIGN §4 resolved once, flags > environment > config file > defaults,
//! with the paths `ai` uses. Below this module nothing reads env vars or clap types again.

mod command_env;
pub(crate) mod exposed;
mod fetcher;
mod foreign;
mod kinds;
mod layer;
mod other_names;
mod paths;
mod programs;
mod project;
mod project_doc;
#[cfg(test)]
mod props;
mod secret_names;
mod secrets;
mod settings_files;
mod table;
mod unknown;

use std::path::PathBuf;
use std::time::Duration;

pub(crate) use command_env::{reaches_the_sandbox, sandboxed_env};
pub(crate) use fetcher::{FetchNeeds, Fetcher};
pub(crate) use foreign::{ANTHROPIC_BASE_URL, ForeignVars, OLLAMA_HOST, secret_vars};
#[cfg(test)] // used by tests elsewhere in the crate
pub(crate) use foreign::{CACHE_VARS, KEY_VARS};
pub(crate) use kinds::{OutputMode, ProviderName, SandboxMode, ToolFormat, WebProvider};
pub(crate) use programs::own_program;
// The environment snapshot is public: `main` takes it (through `app`) and hands it back.
pub use layer::Env;
#[cfg(test)] // used by tests elsewhere in the crate
pub(crate) use layer::Source;
pub(crate) use layer::{
    ENV_PREFIX, FileLayer, McpServerConfig, PolicyConfig, Secret, Shown, env_name,
};
pub(crate) use other_names::{forget as forget_other_names, secret_by_other_name};
pub(crate) use paths::{Paths, lexical, read_regular};
pub(crate) use project::{
    holds_programs_on_path, project_dir, project_root, reached_through_a_link,
};
pub(crate) use project_doc::{PROJECT_DOC_MAX, ProjectDoc, project_doc_paths, read_project_doc};
pub(crate) use secrets::{
    home_secrets, relocated_home_secrets, secret_in_tree, sensitive, system_secrets,
};
pub(crate) use settings_files::{credential_in, holds_credential, read_small};
pub(crate) use table::{KEYS, parse_bool};

use crate::error::ConfigError;
use crate::protocol::ToolChoice;
use layer::Resolver;
use table::Values;

/// Read outside the table: whether to look for a local server on its usual port.
const PROBE_VAR: &str = "SWEBASH_AI_PROBE";

/// The command line's raw values, as the user typed them: `app` fills this from clap, and
/// `resolve` parses and checks it like every other layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Flags {
    pub(crate) model: Option<String>,
    pub(crate) provider: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) tool_format: Option<String>,
    pub(crate) no_stream: bool,
    /// `--tools LIST`.
    pub(crate) tools: Option<String>,
    pub(crate) no_tools: bool,
    pub(crate) max_iterations: Option<String>,
    /// `--yes`.
    pub(crate) yes: bool,
    pub(crate) allow: Vec<String>,
    pub(crate) sandbox: Option<String>,
    pub(crate) json: bool,
    pub(crate) jsonl: bool,
    /// `--command` (widget mode).
    pub(crate) command: bool,
    /// `--shell NAME`: the shell the widget's command is for.
    pub(crate) shell: Option<String>,
    pub(crate) quiet: bool,
    /// `--output-schema FILE`.
    pub(crate) output_schema: Option<String>,
}

/// Settings of the embedded llama.cpp engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LocalSettings {
    /// The model `-m`/`SWEBASH_AI_MODEL` names for the embedded engine (a catalogue name, a
    /// GGUF path or a URL): `None` when a provider other than `local` is named, or when
    /// `model_path` was set in the same or a higher layer (`-m` on the command line beats
    /// `SWEBASH_AI_MODEL_PATH` in the environment, which beats `model` in the file).
    pub(crate) model: Option<String>,
    /// Where `model` was set, as an error about it names it.
    pub(crate) model_origin: String,
    pub(crate) model_path: Option<PathBuf>,
    pub(crate) model_url: Option<String>,
    pub(crate) model_sha256: Option<String>,
    pub(crate) ctx: u32,
    /// 0 means one per core, at most 4.
    pub(crate) threads: u32,
    /// Where a downloaded default model is kept.
    pub(crate) models_dir: Option<PathBuf>,
}

/// Which built-in tools are offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ToolToggles {
    pub(crate) fs: bool,
    pub(crate) exec: bool,
    pub(crate) web: bool,
}

/// Timeouts and retries of HTTP requests to the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HttpSettings {
    pub(crate) connect_timeout: Duration,
    /// Longest wait for the head of a streamed reply once the request is sent.
    pub(crate) first_byte_timeout: Duration,
    /// Longest silence allowed between two chunks of a streamed reply.
    pub(crate) idle_timeout: Duration,
    /// Longest one model request may take, its retries included.
    pub(crate) request_timeout: Duration,
    /// Retries after the first attempt, on 429, 5xx and connection errors.
    pub(crate) retries: u32,
}

/// What the process does before settings are read, from the same snapshot: the panic hook's
/// backtrace (`RUST_BACKTRACE`) and the test suite's deliberate panic (`SWEBASH_AI_TEST_PANIC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Diagnostics {
    pub(crate) backtrace: bool,
    pub(crate) test_panic: bool,
}

impl Diagnostics {
    pub(crate) fn new(env: &Env) -> Self {
        Diagnostics {
            backtrace: env.get("RUST_BACKTRACE").is_some_and(|v| v != "0"),
            test_panic: env.get("SWEBASH_AI_TEST_PANIC").is_some(),
        }
    }
}

/// Every effective setting, typed.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) output: OutputMode,
    pub(crate) quiet: bool,
    pub(crate) stream: bool,
    /// Colour on terminals, unless `NO_COLOR` is set (to anything).
    pub(crate) color: bool,
    pub(crate) tools: ToolToggles,
    pub(crate) confirm: bool,
    pub(crate) max_iterations: u32,
    pub(crate) max_tool_calls: u32,
    pub(crate) fs_max_size: u64,
    pub(crate) fs_roots: Vec<String>,
    pub(crate) exec_timeout: Duration,
    pub(crate) web_provider: WebProvider,
    pub(crate) web_url: Option<String>,
    pub(crate) web_api_key: Option<Secret>,
    pub(crate) sandbox: SandboxMode,
    /// The environment of sandboxed commands: an allowlist (`SWEBASH_AI_SANDBOX_ENV` adds
    /// names), credentials never.
    pub(crate) sandbox_env: Vec<(String, String)>,
    /// Home directories sandboxed commands may read besides the toolchains'
    /// (`SWEBASH_AI_SANDBOX_READ`).
    pub(crate) sandbox_read: Vec<PathBuf>,
    /// `--yes`: approve what would ask.
    pub(crate) approve_all: bool,
    /// `--allow PATTERN`s.
    pub(crate) allow: Vec<String>,
    pub(crate) provider: Option<ProviderName>,
    pub(crate) model: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) api_key: Option<Secret>,
    pub(crate) api_key_cmd: Option<String>,
    /// Whether to look for a local server on its usual port when nothing is configured
    /// (`SWEBASH_AI_PROBE`, default on).
    pub(crate) probe: bool,
    pub(crate) tool_format: ToolFormat,
    pub(crate) tool_choice: ToolChoice,
    pub(crate) constrain: bool,
    /// The JSON Schema file the final answer must match (`--output-schema`); read by `app`.
    pub(crate) output_schema: Option<PathBuf>,
    /// Whether the project's AGENTS.md (and the user's, in the config dir) join the
    /// instructions (`SWEBASH_AI_PROJECT_DOC`).
    pub(crate) project_doc: bool,
    /// Every directory and file `ai` uses.
    pub(crate) paths: Paths,
    /// The shell the model's commands run in: the user's (`SHELL`) when it runs commands
    /// written for POSIX shells, else `/bin/sh`.
    pub(crate) shell: PathBuf,
    /// The shell `ai --command` writes for: `--shell` (the widget's own), else `$SHELL`'s name
    /// (fish included), else `sh`.
    pub(crate) command_shell: String,
    /// `SWEBASH_AI_WIDGET_UNSAFE=refuse`: a widget suggestion the policy would ask for or deny
    /// is not put on the line (by default it is, with a warning).
    pub(crate) widget_refuse_unsafe: bool,
    /// The embedded engine (`--provider local`): the GGUF file, where to fetch the default one,
    /// its SHA-256, the context size and the threads.
    pub(crate) local: LocalSettings,
    /// The enabled MCP servers (none when `SWEBASH_AI_MCP=off`).
    pub(crate) mcp_servers: Vec<McpServerConfig>,
    /// The `[policy]` rules of the config file.
    pub(crate) policy: PolicyConfig,
    pub(crate) http: HttpSettings,
    /// Each value with its source, for `--show-config`.
    pub(crate) shown: Vec<Shown>,
    /// Warnings about keys and tables of the config file that are no setting (typos).
    pub(crate) unknown_file_keys: Vec<String>,
    /// Warnings about `SWEBASH_AI_*` variables that are no setting (a typo, most likely).
    pub(crate) unknown_env: Vec<String>,
    /// How many saved conversations are kept (`SWEBASH_AI_HISTORY_KEEP`).
    pub(crate) history_keep: u32,
    /// Other programs' variables: services' keys, SDK base URLs, package managers' caches, PATH.
    pub(crate) foreign: ForeignVars,
}

impl Settings {
    /// Where the setting `key` was set, as an error about its value should name it.
    pub(crate) fn origin_of(&self, key: &str) -> String {
        let name = env_name(key);
        self.shown
            .iter()
            .find(|s| s.env_name == name)
            .map_or(name, |s| s.origin.clone())
    }

    /// Whether this is the shell widget's run (`--command`): one command line on stdout, only
    /// read-only tools, nobody asked.
    pub(crate) fn command_mode(&self) -> bool {
        self.output == OutputMode::Command
    }
}

/// Merges flags > env > file > defaults into `Settings`.
pub(crate) fn resolve(flags: &Flags, env: &Env, file: &FileLayer) -> Result<Settings, ConfigError> {
    let mut r = Resolver::new(env, file);
    for (key, spelling, value) in flag_values(flags)? {
        r.flag(key, spelling, value);
    }
    let v = Values::resolve(&mut r)?;
    let paths = Paths::new(env);
    Ok(Settings {
        output: output_mode(flags),
        quiet: flags.quiet,
        stream: !flags.no_stream,
        color: env.get("NO_COLOR").is_none(),
        tools: ToolToggles {
            fs: v.tools_fs,
            exec: v.tools_exec,
            web: v.tools_web,
        },
        confirm: v.tools_confirm,
        max_iterations: v.tools_max_iter,
        max_tool_calls: v.tools_max_calls,
        fs_max_size: v.fs_max_size,
        exec_timeout: Duration::from_secs(u64::from(v.exec_timeout)),
        web_provider: v.web_provider,
        web_api_key: v
            .web_api_key
            .clone()
            .or_else(|| env.get("BRAVE_API_KEY").map(Secret::new)),
        sandbox: v.sandbox,
        sandbox_env: sandboxed_env(env, &v.sandbox_env),
        sandbox_read: v.sandbox_read.iter().map(|p| paths.expand(p)).collect(),
        approve_all: flags.yes,
        allow: flags.allow.clone(),
        provider: v.provider,
        api_key: v.api_key.clone(),
        probe: probe(env)?,
        tool_format: v.tool_format,
        constrain: v.constrain,
        output_schema: v.output_schema.as_ref().map(PathBuf::from),
        project_doc: v.project_doc,
        local: local_settings(&v, &paths, &r.shown),
        policy: file.policy.clone(),
        mcp_servers: if v.mcp {
            enabled_servers(file)
        } else {
            Vec::new()
        },
        http: HttpSettings {
            connect_timeout: v.http_connect_timeout,
            first_byte_timeout: v.http_first_byte_timeout,
            idle_timeout: v.http_idle_timeout,
            request_timeout: v.http_timeout,
            retries: v.http_retries,
        },
        shown: r.shown,
        unknown_file_keys: unknown::unknown_file_keys(file),
        unknown_env: unknown::unknown_env_vars(env),
        history_keep: v.history_keep,
        fs_roots: v.fs_roots,
        web_url: v.web_url,
        model: v.model,
        base_url: v.base_url,
        api_key_cmd: v.api_key_cmd,
        tool_choice: v.tool_choice,
        shell: command_shell(env),
        command_shell: widget_shell(flags, env)?,
        widget_refuse_unsafe: v.widget_unsafe,
        foreign: ForeignVars::new(env),
        paths,
    })
}

/// The user's shell when commands written for POSIX shells run in it, else `/bin/sh`.
fn command_shell(env: &Env) -> PathBuf {
    match env.get("SHELL") {
        Some(shell)
            if ["bash", "zsh", "sh", "dash", "ksh"]
                .contains(&shell.rsplit('/').next().unwrap_or_default()) =>
        {
            own_program(shell)
        }
        _ => PathBuf::from("/bin/sh"),
    }
}

/// The shell `ai --command` writes for: `--shell`, else `$SHELL`'s file name, else `sh`.
fn widget_shell(flags: &Flags, env: &Env) -> Result<String, ConfigError> {
    if let Some(name) = &flags.shell {
        let plain = !name.is_empty()
            && name.len() <= 32
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        return if plain {
            Ok(name.clone())
        } else {
            Err(ConfigError::Invalid {
                name: "--shell".into(),
                value: name.clone(),
                expected: "a shell's name, e.g. bash, zsh or fish".into(),
            })
        };
    }
    let from_env = env
        .get("SHELL")
        .and_then(|path| path.rsplit('/').next())
        .filter(|name| !name.is_empty());
    Ok(from_env.unwrap_or("sh").to_string())
}

pub(crate) fn output_mode(flags: &Flags) -> OutputMode {
    if flags.command {
        OutputMode::Command
    } else if flags.json {
        OutputMode::Json
    } else if flags.jsonl {
        OutputMode::Jsonl
    } else {
        OutputMode::Plain
    }
}

fn local_settings(v: &Values, paths: &Paths, shown: &[Shown]) -> LocalSettings {
    let set = |key: &str| {
        let name = env_name(key);
        shown
            .iter()
            .find(|s| s.env_name == name)
            .map(|s| (rank(s.source), s.origin.clone()))
            .unwrap_or((rank(layer::Source::Default), name))
    };
    let (model_rank, model_origin) = set("model");
    let (path_rank, _) = set("model_path");
    let for_local = matches!(v.provider, None | Some(ProviderName::Local));
    let path_wins = v.model_path.is_some() && path_rank <= model_rank;
    LocalSettings {
        model: v.model.clone().filter(|_| for_local && !path_wins),
        model_origin,
        model_path: v
            .model_path
            .as_ref()
            .filter(|_| path_wins)
            .map(PathBuf::from),
        model_url: v.model_url.clone(),
        model_sha256: v.model_sha256.clone(),
        ctx: v.local_ctx,
        threads: v.local_threads,
        models_dir: paths.models_dir.clone(),
    }
}

/// The layers from the highest: a flag, the environment, the file, the default.
fn rank(source: layer::Source) -> u8 {
    match source {
        layer::Source::Flag => 0,
        layer::Source::Env => 1,
        layer::Source::File => 2,
        layer::Source::Default => 3,
    }
}

fn enabled_servers(file: &FileLayer) -> Vec<McpServerConfig> {
    file.mcp_servers
        .iter()
        .filter(|s| s.enabled)
        .cloned()
        .collect()
}

/// `SWEBASH_AI_PROBE`: on unless set to off.
fn probe(env: &Env) -> Result<bool, ConfigError> {
    match env.get(PROBE_VAR) {
        None => Ok(true),
        Some(text) => parse_bool(text).ok_or_else(|| ConfigError::Invalid {
            name: PROBE_VAR.into(),
            value: text.to_string(),
            expected: "on or off".into(),
        }),
    }
}

/// A flag that sets a key of the table: the key, the flag's spelling (named in errors) and its
/// value.
type FlagValue = (&'static str, &'static str, Option<String>);

/// Each flag's value; `--tools LIST` and `--no-tools` set the three toggles.
fn flag_values(flags: &Flags) -> Result<Vec<FlagValue>, ConfigError> {
    let mut values = vec![
        (
            "tools_max_iter",
            "--max-iterations",
            flags.max_iterations.clone(),
        ),
        ("provider", "--provider", flags.provider.clone()),
        ("sandbox", "--sandbox", flags.sandbox.clone()),
        ("tool_format", "--tool-format", flags.tool_format.clone()),
        ("model", "--model", flags.model.clone()),
        ("base_url", "--base-url", flags.base_url.clone()),
        (
            "output_schema",
            "--output-schema",
            flags.output_schema.clone(),
        ),
    ];
    let spelling = if flags.no_tools {
        "--no-tools"
    } else {
        "--tools"
    };
    for (key, value) in tool_flag_values(flags)? {
        values.push((key, spelling, value));
    }
    Ok(values)
}

/// `--tools LIST` and `--no-tools` as flag values for the three toggles.
fn tool_flag_values(flags: &Flags) -> Result<[(&'static str, Option<String>); 3], ConfigError> {
    let chosen: Option<Vec<&str>> = if flags.no_tools {
        Some(Vec::new())
    } else if let Some(list) = &flags.tools {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn flags() -> Flags {
        Flags::default()
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
        let s = resolve(
            &Flags {
                max_iterations: Some("9".into()),
                ..flags()
            },
            &env,
            &file,
        )
        .ok();
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
        let err = resolve(&flags(), &env, &FileLayer::default()).err();
        assert!(matches!(
            err,
            Some(ConfigError::Invalid { ref name, ref value, .. })
                if name == "SWEBASH_AI_TOOLS_MAX_ITER" && value == "abc"
        ));
    }

    #[test]
    fn invalid_file_value_names_the_key_and_file() {
        let err = resolve(&flags(), &Env::default(), &file("tools_fs = \"maybe\"")).err();
        let message = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("`tools_fs` in /cfg/config.toml, line 1"),
            "{message}"
        );
    }

    #[test]
    fn tools_flag_overrides_each_toggle_and_no_tools_disables_all() {
        let env = Env::from_pairs([("SWEBASH_AI_TOOLS_WEB", "true")]);
        let s = resolve(
            &Flags {
                tools: Some("fs,exec".into()),
                ..flags()
            },
            &env,
            &FileLayer::default(),
        )
        .ok();
        assert_eq!(
            s.map(|s| s.tools),
            Some(ToolToggles {
                fs: true,
                exec: true,
                web: false
            })
        );
        let s = resolve(
            &Flags {
                no_tools: true,
                ..flags()
            },
            &env,
            &FileLayer::default(),
        )
        .ok();
        assert_eq!(
            s.map(|s| s.tools),
            Some(ToolToggles {
                fs: false,
                exec: false,
                web: false
            })
        );
        assert!(
            resolve(
                &Flags {
                    tools: Some("fs,rocket".into()),
                    ..flags()
                },
                &env,
                &FileLayer::default()
            )
            .is_err()
        );
    }

    #[test]
    fn secrets_are_redacted_in_show_config() {
        let env = Env::from_pairs([("SWEBASH_AI_API_KEY", "sk-very-secret")]);
        let s = resolve(&flags(), &env, &FileLayer::default()).ok();
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
        use table::parse_tool_choice;
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

    fn error_name(flags: &Flags, env: &Env, file: &FileLayer) -> String {
        match resolve(flags, env, file) {
            Err(ConfigError::Invalid { name, .. }) => name,
            other => format!("not an invalid value: {other:?}"),
        }
    }

    #[test]
    fn a_bad_provider_flag_names_the_flag_not_the_variable() {
        let env = Env::from_pairs([("SWEBASH_AI_PROVIDER", "openai")]);
        let bad = Flags {
            provider: Some("bogus".into()),
            ..flags()
        };
        assert_eq!(error_name(&bad, &env, &FileLayer::default()), "--provider");
    }

    #[test]
    fn a_bad_provider_variable_names_the_variable() {
        let env = Env::from_pairs([("SWEBASH_AI_PROVIDER", "bogus")]);
        let file = file("provider = \"openai\"\n");
        assert_eq!(error_name(&flags(), &env, &file), "SWEBASH_AI_PROVIDER");
    }

    #[test]
    fn a_bad_provider_in_the_file_names_the_key_the_file_and_the_line() {
        let file = file("model = \"m\"\n\nprovider = \"bogus\"\n");
        assert_eq!(
            error_name(&flags(), &Env::default(), &file),
            "`provider` in /cfg/config.toml, line 3"
        );
    }

    #[test]
    fn a_bad_base_url_flag_names_the_flag() {
        let bad = Flags {
            base_url: Some("127.0.0.1:8080".into()),
            ..flags()
        };
        assert_eq!(
            error_name(&bad, &Env::default(), &FileLayer::default()),
            "--base-url"
        );
    }

    #[test]
    fn every_key_of_the_table_is_known_to_the_file_the_environment_and_show_config() {
        let text: String = KEYS.iter().map(|k| format!("{k} = \"x\"\n")).collect();
        let layer = file(&text);
        assert!(unknown::unknown_file_keys(&layer).is_empty());
        let names: Vec<String> = KEYS.iter().map(|k| env_name(k)).collect();
        let env = Env::from_pairs(names.iter().map(|n| (n.as_str(), "x")));
        assert!(unknown::unknown_env_vars(&env).is_empty());
        let settings = resolve(&flags(), &Env::default(), &FileLayer::default());
        let shown: Vec<String> = settings
            .map(|s| s.shown.into_iter().map(|s| s.env_name).collect())
            .unwrap_or_default();
        assert_eq!(
            shown, names,
            "--show-config has one row per key, in table order"
        );
    }

    #[test]
    fn every_flag_sets_a_key_of_the_table() {
        let all = Flags {
            tools: Some("fs".into()),
            ..flags()
        };
        for (key, _, _) in flag_values(&all).unwrap_or_default() {
            assert!(KEYS.contains(&key), "{key}");
        }
    }

    #[test]
    fn the_model_path_beats_a_model_of_its_layer_or_below_and_a_model_flag_beats_it() {
        let local = |flags: Flags, env: &[(&str, &str)]| {
            resolve(
                &flags,
                &Env::from_pairs(env.iter().copied()),
                &FileLayer::default(),
            )
            .map(|s| (s.local.model, s.local.model_path))
            .ok()
        };
        let path = ("SWEBASH_AI_MODEL_PATH", "/m/a.gguf");
        assert_eq!(
            local(flags(), &[path, ("SWEBASH_AI_MODEL", "qwen3-4b")]),
            Some((None, Some(PathBuf::from("/m/a.gguf"))))
        );
        let flag = Flags {
            model: Some("qwen3-4b".into()),
            ..flags()
        };
        assert_eq!(local(flag, &[path]), Some((Some("qwen3-4b".into()), None)));
        // A model named for another provider is not the engine's.
        assert_eq!(
            local(
                flags(),
                &[
                    ("SWEBASH_AI_PROVIDER", "openai"),
                    ("SWEBASH_AI_MODEL", "gpt-4o")
                ]
            ),
            Some((None, None))
        );
    }

    #[test]
    fn paths_and_colour_come_from_the_snapshot() {
        let env = Env::from_pairs([("HOME", "/home/u"), ("NO_COLOR", "1")]);
        let s = resolve(&flags(), &env, &FileLayer::default()).ok();
        assert_eq!(s.as_ref().map(|s| s.color), Some(false));
        assert_eq!(
            s.and_then(|s| s.local.models_dir),
            Some(PathBuf::from("/home/u/.cache/swebash-ai/models"))
        );
    }
}
