//! Every directory and file `ai` uses, worked out once from the environment snapshot: the XDG
//! base directories (with the `~/.config`-style defaults of Linux, on every system), the home,
//! working and temp directories. Nothing below `config` computes a path of its own.

use std::path::{Path, PathBuf};

use super::Env;

/// The directory of ours under each XDG base directory.
const APP_DIR: &str = "swebash-ai";

/// Where things are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Paths {
    /// `$HOME`, else the password database's entry.
    pub(crate) home: Option<PathBuf>,
    /// The working directory (`None` when it cannot be read, e.g. it was removed).
    pub(crate) cwd: Option<PathBuf>,
    /// The working directory as the shell names it (`$PWD`), which may go through links.
    pub(crate) logical_cwd: Option<PathBuf>,
    /// `$TMPDIR`, else `/tmp`.
    pub(crate) temp: PathBuf,
    /// `$XDG_CONFIG_HOME/swebash-ai` (else `~/.config/...`; directories' macOS default,
    /// `~/Library/Application Support`, surprises terminal users).
    pub(crate) config_dir: Option<PathBuf>,
    /// `config.toml` in `config_dir`.
    pub(crate) config_file: Option<PathBuf>,
    /// `$XDG_STATE_HOME/swebash-ai`, else `~/.local/state/swebash-ai`: the audit log and the
    /// shell hooks' last command.
    pub(crate) state_dir: Option<PathBuf>,
    /// `audit.jsonl` in `state_dir`.
    pub(crate) audit_log: Option<PathBuf>,
    /// `$XDG_DATA_HOME/swebash-ai`, else `~/.local/share/swebash-ai`.
    pub(crate) data_dir: Option<PathBuf>,
    /// The saved conversations, in `data_dir`.
    pub(crate) conversations_dir: Option<PathBuf>,
    /// The REPL's input history, in `data_dir`.
    pub(crate) history_file: Option<PathBuf>,
    /// `$XDG_CACHE_HOME/swebash-ai`, else `~/.cache/swebash-ai`.
    pub(crate) cache_dir: Option<PathBuf>,
    /// Downloaded models of the `local` provider, in `cache_dir`.
    pub(crate) models_dir: Option<PathBuf>,
    /// The MCP servers' tool lists, in `cache_dir`.
    pub(crate) mcp_cache: Option<PathBuf>,
}

impl Paths {
    /// A directory the user named: `~/x` and relative paths are under home.
    pub(crate) fn expand(&self, path: &str) -> PathBuf {
        let rest = path
            .strip_prefix("~/")
            .or_else(|| (path == "~").then_some(""));
        match (&self.home, rest) {
            (Some(home), Some(rest)) => home.join(rest),
            (Some(home), None) if Path::new(path).is_relative() => home.join(path),
            _ => PathBuf::from(path),
        }
    }

    pub(crate) fn new(env: &Env) -> Self {
        let home = env.home();
        let base = |var: &str, default: &str| -> Option<PathBuf> {
            let base = match env.get(var) {
                Some(dir) => PathBuf::from(dir),
                None => home.as_ref()?.join(default),
            };
            Some(base.join(APP_DIR))
        };
        let config_dir = base("XDG_CONFIG_HOME", ".config");
        let state_dir = base("XDG_STATE_HOME", ".local/state");
        let data_dir = base("XDG_DATA_HOME", ".local/share");
        let cache_dir = base("XDG_CACHE_HOME", ".cache");
        let under = |dir: &Option<PathBuf>, name: &str| dir.as_ref().map(|d| d.join(name));
        Paths {
            cwd: env.cwd().map(Path::to_path_buf),
            logical_cwd: env.get("PWD").map(PathBuf::from),
            temp: PathBuf::from(env.get("TMPDIR").unwrap_or("/tmp")),
            config_file: under(&config_dir, "config.toml"),
            audit_log: under(&state_dir, "audit.jsonl"),
            conversations_dir: under(&data_dir, "conversations"),
            history_file: under(&data_dir, "history"),
            models_dir: under(&cache_dir, "models"),
            mcp_cache: under(&cache_dir, "mcp"),
            home,
            config_dir,
            state_dir,
            data_dir,
            cache_dir,
        }
    }

    /// ai's own directories: kept out of reach of the commands it runs.
    pub(crate) fn own_dirs(&self) -> Vec<PathBuf> {
        [
            &self.config_dir,
            &self.state_dir,
            &self.data_dir,
            &self.cache_dir,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect()
    }
}

/// `path` with `.` and `..` worked out by its words alone (`/p/../x` is `/x`), so that a check
/// of what lies in the project cannot be passed by a `..`.
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Opens `path` for reading only when it is a regular file, without waiting on a FIFO a
/// command may have left in its place.
pub(crate) fn read_regular(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(std::io::Error::other("not a regular file"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xdg_variables_win_and_home_is_the_fallback() {
        let env = Env::from_pairs([
            ("HOME", "/home/u"),
            ("XDG_STATE_HOME", "/state"),
            ("TMPDIR", "/scratch"),
        ]);
        let paths = Paths::new(&env);
        assert_eq!(
            paths.config_file.as_deref(),
            Some(Path::new("/home/u/.config/swebash-ai/config.toml"))
        );
        assert_eq!(
            paths.audit_log.as_deref(),
            Some(Path::new("/state/swebash-ai/audit.jsonl"))
        );
        assert_eq!(
            paths.conversations_dir.as_deref(),
            Some(Path::new("/home/u/.local/share/swebash-ai/conversations"))
        );
        assert_eq!(
            paths.mcp_cache.as_deref(),
            Some(Path::new("/home/u/.cache/swebash-ai/mcp"))
        );
        assert_eq!(paths.temp, Path::new("/scratch"));
        assert_eq!(paths.own_dirs().len(), 4);
    }

    #[test]
    fn without_home_only_the_xdg_variables_give_directories() {
        let env = Env::from_pairs([("XDG_DATA_HOME", "/data")]).with_cwd(Path::new("/work"));
        let paths = Paths::new(&env);
        assert_eq!(paths.cwd.as_deref(), Some(Path::new("/work")));
        assert_eq!(paths.home, None);
        assert_eq!(paths.config_file, None);
        assert_eq!(
            paths.history_file.as_deref(),
            Some(Path::new("/data/swebash-ai/history"))
        );
        assert_eq!(paths.temp, Path::new("/tmp"));
    }
}
