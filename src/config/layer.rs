//! The layers settings come from (flags, environment, config file, defaults) and the resolver that
//! takes each value from the first layer that has it, remembering where it came from.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::ConfigError;

/// The prefix of every variable of ours (DESIGN §4).
pub(crate) const ENV_PREFIX: &str = "SWEBASH_AI_";

/// A snapshot of the process environment, taken once at start-up so that nothing below reads
/// `std::env` (and tests can hand in their own): the variables, the working directory and the
/// home directory.
#[derive(Clone, Default)]
pub struct Env {
    vars: HashMap<String, String>,
    cwd: Option<PathBuf>,
    home: Option<PathBuf>,
}

impl Env {
    pub(crate) fn from_process() -> Self {
        Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
            cwd: std::env::current_dir().ok(),
            // `$HOME`, else the password database's entry.
            home: directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()),
        }
    }

    /// Variables only (for tests): the home is `HOME`, the working directory unknown.
    #[cfg(test)]
    pub(crate) fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let vars: HashMap<String, String> = pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let home = vars
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        Env {
            vars,
            cwd: None,
            home,
        }
    }

    /// The same snapshot taken in `cwd` (for tests).
    #[cfg(test)]
    pub(crate) fn with_cwd(mut self, cwd: &Path) -> Self {
        self.cwd = Some(cwd.to_path_buf());
        self
    }

    /// Every variable with its value.
    pub(crate) fn vars(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The names of every variable, to spot misspelt settings.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.vars.keys().map(String::as_str)
    }

    /// A variable's value; an empty value counts as unset, as most CLIs treat it.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The working directory when the snapshot was taken.
    pub(crate) fn cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// The user's home directory.
    pub(crate) fn home(&self) -> Option<PathBuf> {
        self.home.clone()
    }
}

/// Names only: the values hold API keys.
impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Env({} variables, cwd {:?})", self.vars.len(), self.cwd)
    }
}

/// Where an effective value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    Flag,
    Env,
    File,
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Flag => "flag",
            Source::Env => "env",
            Source::File => "file",
            Source::Default => "default",
        })
    }
}

/// One line of `--show-config`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    pub(crate) env_name: String,
    pub(crate) value: String,
    pub(crate) source: Source,
    /// Where the value was set, as errors name it: the flag, the variable, or the key with the
    /// file and line (`default` for a default).
    pub(crate) origin: String,
}

/// A secret (an API key): its Debug and Display never show it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    pub(crate) fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The values of the config file, flattened to strings keyed by setting name, and the MCP
/// servers it configures.
#[derive(Debug, Default)]
pub(crate) struct FileLayer {
    pub(crate) path: Option<PathBuf>,
    values: BTreeMap<String, String>,
    /// The line each key is on, for errors.
    lines: BTreeMap<String, usize>,
    pub(crate) mcp_servers: Vec<McpServerConfig>,
    pub(crate) policy: PolicyConfig,
    /// Tables (and inline tables) that are no part of the file's format: `[polciy]` would
    /// otherwise be dropped in silence, and its deny rules never apply.
    tables: Vec<String>,
}

/// The `[policy]` table: the user's own command rules, as glob patterns matched against each
/// simple command of a line (`"terraform plan*"`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PolicyConfig {
    /// Run without asking (like `--allow`).
    #[serde(default)]
    pub(crate) allow: Vec<String>,
    /// Always ask, even for commands ai knows to be safe.
    #[serde(default)]
    pub(crate) ask: Vec<String>,
    /// Never run; nothing overrides this.
    #[serde(default)]
    pub(crate) deny: Vec<String>,
}

/// One `[[mcp_servers]]` table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct McpServerConfig {
    pub(crate) name: String,
    pub(crate) command: String,
    #[serde(default)]
    pub(crate) args: Vec<String>,
    #[serde(default)]
    pub(crate) env: BTreeMap<String, String>,
    #[serde(default = "yes")]
    pub(crate) enabled: bool,
    /// The server's own tool names that may run without asking.
    #[serde(default)]
    pub(crate) allowed_tools: Vec<String>,
    #[serde(default = "default_timeout")]
    pub(crate) timeout_seconds: u64,
    /// Where the server starts; `/` when not given, never the project, whose files a
    /// sandboxed call may have written (`python3 -m NAME` and `npx` look there first).
    #[serde(default)]
    pub(crate) cwd: Option<std::path::PathBuf>,
}

fn yes() -> bool {
    true
}

fn default_timeout() -> u64 {
    60
}

impl FileLayer {
    /// Reads `path` if it exists. A missing file is an empty layer; an unreadable or malformed one
    /// is a configuration error naming the file.
    pub(crate) fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(FileLayer::default());
            }
            Err(err) => {
                return Err(ConfigError::File {
                    path: path.display().to_string(),
                    message: err.to_string(),
                });
            }
        };
        Self::parse(&text, path)
    }

    pub(crate) fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let file_error = |message: String| ConfigError::File {
            path: path.display().to_string(),
            message,
        };
        let table: toml::Table = text
            .parse()
            .map_err(|err: toml::de::Error| file_error(with_line(text, &err)))?;
        let mut values = BTreeMap::new();
        let mut mcp_servers = Vec::new();
        let mut policy = PolicyConfig::default();
        let mut tables = Vec::new();
        for (key, value) in table {
            if key == "policy" {
                policy = value.try_into().map_err(|err: toml::de::Error| {
                    file_error(format!("[policy]: {}", err.message()))
                })?;
                continue;
            }
            if key == "mcp_servers" {
                mcp_servers = value.try_into().map_err(|err: toml::de::Error| {
                    file_error(format!("[[mcp_servers]]: {}", err.message()))
                })?;
                continue;
            }
            let text = match value {
                toml::Value::String(s) => s,
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                toml::Value::Array(items) => items
                    .iter()
                    .map(|item| match item {
                        toml::Value::String(s) => Ok(s.clone()),
                        _ => Err(file_error(format!("`{key}` must be a list of strings"))),
                    })
                    .collect::<Result<Vec<_>, _>>()?
                    .join(":"),
                // `[policy]` and `[[mcp_servers]]` were read above; any other table is a typo.
                _ => {
                    tables.push(key);
                    continue;
                }
            };
            values.insert(key, text);
        }
        for server in &mcp_servers {
            let McpServerConfig { name, .. } = server;
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                || name.contains("__")
            {
                return Err(file_error(format!(
                    "[[mcp_servers]] name {name:?}: use letters, digits, - and _ (no __)"
                )));
            }
        }
        Ok(FileLayer {
            path: Some(path.to_path_buf()),
            lines: key_lines(text),
            values,
            mcp_servers,
            policy,
            tables,
        })
    }

    /// Every top-level key of the file except `[policy]` and `[[mcp_servers]]`: settings, and
    /// tables that are none.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.values
            .keys()
            .chain(self.tables.iter())
            .map(String::as_str)
    }

    /// `` `key` in PATH, line N ``: where a value of the file is, for an error about it.
    pub(crate) fn place(&self, key: &str) -> String {
        let path = self
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        match self.lines.get(key) {
            Some(line) => format!("`{key}` in {path}, line {line}"),
            None => format!("`{key}` in {path}"),
        }
    }
}

/// The line of each top-level key (from the parser's spans; the text already parsed once).
fn key_lines(text: &str) -> BTreeMap<String, usize> {
    let Ok(table) = toml::de::DeTable::parse(text) else {
        return BTreeMap::new();
    };
    table
        .get_ref()
        .keys()
        .map(|key| {
            let before = text.get(..key.span().start).unwrap_or(text);
            (key.get_ref().to_string(), before.matches('\n').count() + 1)
        })
        .collect()
}

/// Takes each setting from the first layer that has it and records what it did for
/// `--show-config`.
pub(crate) struct Resolver<'a> {
    flags: HashMap<&'static str, (&'static str, String)>,
    env: &'a Env,
    file: &'a FileLayer,
    pub(crate) shown: Vec<Shown>,
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(env: &'a Env, file: &'a FileLayer) -> Self {
        Resolver {
            flags: HashMap::new(),
            env,
            file,
            shown: Vec::new(),
        }
    }

    /// Records a flag value for `key` (`flag` is its spelling, for error messages).
    pub(crate) fn flag(&mut self, key: &'static str, flag: &'static str, value: Option<String>) {
        if let Some(value) = value {
            self.flags.insert(key, (flag, value));
        }
    }

    /// The raw text of `key` with where it came from and the name to blame in errors.
    fn raw(&self, key: &str) -> Option<(String, Source, String)> {
        let env_name = env_name(key);
        if let Some((flag, value)) = self.flags.get(key) {
            return Some((value.clone(), Source::Flag, (*flag).to_string()));
        }
        if let Some(value) = self.env.get(&env_name) {
            return Some((value.to_string(), Source::Env, env_name));
        }
        if let Some(value) = self.file.values.get(key) {
            return Some((value.clone(), Source::File, self.file.place(key)));
        }
        None
    }

    /// Resolves `key`, parsing its text with `parse`; `expected` says what a valid value looks like.
    pub(crate) fn get<T>(
        &mut self,
        key: &str,
        default: T,
        expected: &str,
        parse: impl Fn(&str) -> Option<T>,
        show: impl Fn(&T) -> String,
    ) -> Result<T, ConfigError> {
        let Some((text, source, origin)) = self.raw(key) else {
            self.record(key, show(&default), None);
            return Ok(default);
        };
        let value = parse(text.trim()).ok_or_else(|| ConfigError::Invalid {
            name: origin.clone(),
            value: text.clone(),
            expected: expected.to_string(),
        })?;
        self.record(key, show(&value), Some((source, origin)));
        Ok(value)
    }

    /// Resolves an optional text setting (no default).
    pub(crate) fn text(&mut self, key: &str) -> Result<Option<String>, ConfigError> {
        let found = self.raw(key);
        let shown = found.as_ref().map(|f| f.0.clone()).unwrap_or_default();
        self.record(key, shown, found.as_ref().map(|f| (f.1, f.2.clone())));
        Ok(found.map(|f| f.0))
    }

    /// Resolves a secret: recorded as `<redacted>` when set.
    pub(crate) fn secret(&mut self, key: &str) -> Result<Option<Secret>, ConfigError> {
        let found = self.raw(key);
        let shown = if found.is_some() { "<redacted>" } else { "" };
        self.record(
            key,
            shown.into(),
            found.as_ref().map(|f| (f.1, f.2.clone())),
        );
        Ok(found.map(|f| Secret::new(f.0)))
    }

    /// Notes a resolved value for `--show-config` (`found`: its source and origin, if set).
    fn record(&mut self, key: &str, value: String, found: Option<(Source, String)>) {
        let (source, origin) = found.unwrap_or((Source::Default, "default".into()));
        self.shown.push(Shown {
            env_name: env_name(key),
            value,
            source,
            origin,
        });
    }
}

pub(crate) fn env_name(key: &str) -> String {
    format!("{ENV_PREFIX}{}", key.to_ascii_uppercase())
}

/// A TOML error with where it is: `line 3, column 9: expected ...`, so the user can go there.
fn with_line(text: &str, err: &toml::de::Error) -> String {
    let message = err.message().trim_end();
    match err.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before
                .rsplit('\n')
                .next()
                .unwrap_or_default()
                .chars()
                .count()
                + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message.to_string(),
    }
}
