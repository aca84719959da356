//! The environment of commands run in the sandbox: an allowlist, not a blocklist. A sandboxed
//! command is assumed to be an attacker's program, and whatever `ai` was started with (a
//! `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, a CI's deploy key) is one `env`, `make -p` or `npm run
//! env` away from the model. So it gets the variables a build needs (paths, locale, terminal,
//! toolchains) and those the user names (`SWEBASH_AI_SANDBOX_ENV`); a name that looks like a
//! credential is dropped even then.

use super::Env;

/// Variables passed as they are.
const ALLOWED: &[&str] = &[
    // The basics.
    "PATH",
    "TMPDIR",
    // Certificates to trust (a TLS-intercepting proxy) and who commits: paths and names.
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "PIP_CERT",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "COLORTERM",
    "LANG",
    "LANGUAGE",
    "TZ",
    "NO_COLOR",
    "CLICOLOR",
    "FORCE_COLOR",
    "COLUMNS",
    "LINES",
    "CI",
    "EDITOR",
    "PAGER",
    // Toolchains: Rust, Go, JVM, Node, Python, Ruby, Perl, .NET, Deno, Bun, C and C++.
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_JOBS",
    "CARGO_INCREMENTAL",
    "CARGO_TERM_COLOR",
    "GOPATH",
    "GOROOT",
    "GOCACHE",
    "GOMODCACHE",
    "GOFLAGS",
    "GOOS",
    "GOARCH",
    "GO111MODULE",
    "GOTOOLCHAIN",
    "JAVA_HOME",
    "MAVEN_OPTS",
    "GRADLE_USER_HOME",
    "GRADLE_OPTS",
    "NODE_PATH",
    "NODE_OPTIONS",
    "NODE_ENV",
    "NVM_DIR",
    "NVM_BIN",
    "npm_config_cache",
    "PNPM_HOME",
    "YARN_CACHE_FOLDER",
    "PYTHONPATH",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PYENV_ROOT",
    "PIP_CACHE_DIR",
    "UV_CACHE_DIR",
    "POETRY_CACHE_DIR",
    "GEM_HOME",
    "GEM_PATH",
    "BUNDLE_PATH",
    "RBENV_ROOT",
    "PERL5LIB",
    "DOTNET_ROOT",
    "DOTNET_CLI_TELEMETRY_OPTOUT",
    "DENO_DIR",
    "BUN_INSTALL",
    "CC",
    "CXX",
    "AR",
    "LD",
    "CFLAGS",
    "CXXFLAGS",
    "CPPFLAGS",
    "LDFLAGS",
    "PKG_CONFIG_PATH",
    "LD_LIBRARY_PATH",
    "LIBRARY_PATH",
    "CPATH",
    "MAKEFLAGS",
    "CMAKE_PREFIX_PATH",
];

/// Families passed by prefix (locale, XDG base directories).
const ALLOWED_PREFIXES: &[&str] = &["LC_", "XDG_"];

/// Parts of a name that mark a credential: never passed, even when the user names it.
const SECRET_PARTS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "KEY",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
    "SESSION",
    "PRIVATE",
    "CERT",
];

/// Cloud and service families whose variables are credentials or point at them.
const SECRET_PREFIXES: &[&str] = &[
    "AWS_",
    "AZURE_",
    "GOOGLE_",
    "GCP_",
    "GCLOUD_",
    "CLOUDSDK_",
    "DIGITALOCEAN_",
    "HEROKU_",
    "VAULT_",
    "GITHUB_",
    "GH_",
    "GITLAB_",
    "DOCKER_",
    "KUBE",
    "NPM_",
    "TWINE_",
    "OP_",
    "SSH_",
    "GPG_",
    "SWEBASH_AI_",
];

/// Variables that point into a directory the sandbox hides (never passed, even by prefix).
const HIDDEN_DIRS: &[&str] = &["XDG_RUNTIME_DIR"];

/// Whether `name` looks like a credential (or a pointer to one).
pub(crate) fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_PARTS.iter().any(|part| upper.contains(part))
        || SECRET_PREFIXES
            .iter()
            .any(|prefix| upper.starts_with(prefix))
}

/// The variables of `env` a sandboxed command gets: the allowlist and `extra` (names the user
/// added), less anything that looks like a credential.
/// Whether the variable `name` reaches sandboxed commands by default (the user may name more).
pub(crate) fn reaches_the_sandbox(name: &str) -> bool {
    let listed = ALLOWED.contains(&name) || ALLOWED_PREFIXES.iter().any(|p| name.starts_with(p));
    listed && (ALLOWED.contains(&name) || !looks_secret(name)) && !HIDDEN_DIRS.contains(&name)
}

pub(crate) fn sandboxed_env(env: &Env, extra: &[String]) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = env
        .vars()
        .filter(|(name, _)| {
            ALLOWED.contains(name)
                || ALLOWED_PREFIXES.iter().any(|p| name.starts_with(p))
                || extra.iter().any(|e| e == name)
        })
        // Named here on purpose (a certificate's path, a committer's name), else not a secret.
        .filter(|(name, _)| ALLOWED.contains(name) || !looks_secret(name))
        // The user's runtime directory holds login tokens and sockets; the sandbox hides it.
        .filter(|(name, _)| !HIDDEN_DIRS.contains(name))
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    vars.sort();
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_keep_their_variables_and_credentials_of_every_spelling_are_dropped() {
        let env = Env::from_pairs([
            ("PATH", "/bin"),
            ("HOME", "/h"),
            ("LC_ALL", "C"),
            ("CARGO_HOME", "/c"),
            ("MY_BUILD_FLAG", "1"),
            ("GITHUB_TOKEN", "ghp"),
            ("AWS_SECRET_ACCESS_KEY", "a"),
            ("AWS_PROFILE", "prod"),
            ("NPM_TOKEN", "n"),
            ("DATABASE_PASSWORD", "p"),
            ("OPENAI_API_KEY", "sk"),
            ("CARGO_REGISTRIES_X_TOKEN", "t"),
            ("SSH_AUTH_SOCK", "/s"),
            ("KUBECONFIG", "/k"),
            ("VAULT_ADDR", "v"),
            ("RANDOM_UNKNOWN", "x"),
            ("SWEBASH_AI_API_KEY_CMD", "pass show"),
        ]);
        let extra = vec!["MY_BUILD_FLAG".to_string(), "GITHUB_TOKEN".to_string()];
        let names: Vec<String> = sandboxed_env(&env, &extra)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(
            names,
            ["CARGO_HOME", "HOME", "LC_ALL", "MY_BUILD_FLAG", "PATH"]
        );
    }
}
