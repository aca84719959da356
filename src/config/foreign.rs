//! Other programs' variables that `ai` honours (services' API keys, the SDKs' base URLs, package
//! managers' caches, `PATH`), taken from the snapshot once so that the provider and the sandbox
//! read typed values and never the environment. config owns the names; the provider's service
//! table and the sandbox's package managers name only variables listed here (their tests check).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Env, Secret};

/// The variables that hold a service's API key (Gemini's also under `GOOGLE_API_KEY`).
pub(crate) const KEY_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GROQ_API_KEY",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "MISTRAL_API_KEY",
    "TOGETHER_API_KEY",
    "VLLM_API_KEY",
];

/// ai's own variables that hold a key or fetch one (and the web search's key).
pub(crate) const OWN_KEY_VARS: &[&str] = &[
    "SWEBASH_AI_API_KEY",
    "SWEBASH_AI_API_KEY_CMD",
    "SWEBASH_AI_WEB_API_KEY",
    "BRAVE_API_KEY",
];

/// Every variable that holds a key or the command that prints one: kept from the commands ai
/// runs, and wiped from ai's own environment once read.
pub(crate) fn secret_vars() -> impl Iterator<Item = &'static str> {
    KEY_VARS.iter().chain(OWN_KEY_VARS).copied()
}

/// The Anthropic SDK's base URL variable.
pub(crate) const ANTHROPIC_BASE_URL: &str = "ANTHROPIC_BASE_URL";

/// Where Ollama listens (`host:port` or a URL).
pub(crate) const OLLAMA_HOST: &str = "OLLAMA_HOST";

/// Package managers' variables that move their caches out of the home directory.
pub(crate) const CACHE_VARS: &[&str] = &["CARGO_HOME", "npm_config_cache", "GOMODCACHE", "GOCACHE"];

/// Variables that name where a toolchain lives (sandboxed builds must be able to read it).
pub(crate) const TOOLCHAIN_VARS: &[&str] = &[
    "RUSTUP_HOME",
    "CARGO_HOME",
    "GOROOT",
    "GOPATH",
    "JAVA_HOME",
    "NVM_DIR",
    "PYENV_ROOT",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "VOLTA_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "GEM_HOME",
    "RBENV_ROOT",
    "SDKMAN_DIR",
    "DOTNET_ROOT",
];

/// The values of those variables that are set (an empty value counts as unset, as everywhere).
/// Debug shows the keys' names only: `Secret` redacts their values.
#[derive(Debug, Clone, Default)]
pub(crate) struct ForeignVars {
    keys: BTreeMap<&'static str, Secret>,
    /// `ANTHROPIC_BASE_URL`, as written (the provider checks it is a URL, naming the variable).
    pub(crate) anthropic_base_url: Option<String>,
    /// `OLLAMA_HOST`, as written.
    pub(crate) ollama_host: Option<String>,
    caches: BTreeMap<&'static str, PathBuf>,
    /// `PATH`, for `--command` to tell a command from prose.
    pub(crate) path: Option<String>,
    /// The directories `TOOLCHAIN_VARS` name.
    pub(crate) toolchains: Vec<PathBuf>,
}

impl ForeignVars {
    pub(crate) fn new(env: &Env) -> Self {
        let text = |name: &str| env.get(name).map(String::from);
        ForeignVars {
            keys: KEY_VARS
                .iter()
                .filter_map(|&name| Some((name, Secret::new(env.get(name)?))))
                .collect(),
            anthropic_base_url: text(ANTHROPIC_BASE_URL),
            ollama_host: text(OLLAMA_HOST),
            caches: CACHE_VARS
                .iter()
                .filter_map(|&name| Some((name, PathBuf::from(env.get(name)?))))
                .collect(),
            path: text("PATH"),
            toolchains: TOOLCHAIN_VARS
                .iter()
                .filter_map(|&name| Some(PathBuf::from(env.get(name)?)))
                .collect(),
        }
    }

    /// The key in the variable `name` (one of `KEY_VARS`), if set.
    pub(crate) fn key(&self, name: &str) -> Option<&Secret> {
        self.keys.get(name)
    }

    /// The directory in the variable `name` (one of `CACHE_VARS`), if set.
    pub(crate) fn cache_dir(&self, name: &str) -> Option<&Path> {
        self.caches.get(name).map(PathBuf::as_path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_variables_are_kept_and_empty_ones_are_unset() {
        let env = Env::from_pairs([
            ("GROQ_API_KEY", "gsk"),
            ("OPENAI_API_KEY", ""),
            ("CARGO_HOME", "/opt/cargo"),
            ("GOCACHE", ""),
            ("OLLAMA_HOST", "box:11434"),
            ("PATH", "/bin"),
            ("UNRELATED_API_KEY", "x"),
        ]);
        let vars = ForeignVars::new(&env);
        assert_eq!(vars.key("GROQ_API_KEY").map(Secret::expose), Some("gsk"));
        assert!(vars.key("OPENAI_API_KEY").is_none());
        assert!(vars.key("UNRELATED_API_KEY").is_none());
        assert_eq!(vars.cache_dir("CARGO_HOME"), Some(Path::new("/opt/cargo")));
        assert!(vars.cache_dir("GOCACHE").is_none());
        assert_eq!(vars.ollama_host.as_deref(), Some("box:11434"));
        assert_eq!(vars.anthropic_base_url, None);
        assert_eq!(vars.path.as_deref(), Some("/bin"));
    }

    #[test]
    fn debug_never_shows_a_key() {
        let vars = ForeignVars::new(&Env::from_pairs([("OPENAI_API_KEY", "sk-very-secret")]));
        let shown = format!("{vars:?}");
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        assert!(shown.contains("OPENAI_API_KEY"), "{shown}");
    }
}
