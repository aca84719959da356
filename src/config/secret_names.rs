//! Secret files recognised by name wherever they are: `.env` and its spellings, private keys,
//! credential and token files, and what lies in a secret directory (`.aws/`, `.envs/`). Names are
//! judged by category, after the decorations editors and backups add (`.env~`, `#.env#`,
//! `id_rsa.bak`, `.env.swp`), so a copy is as secret as its original.

/// Why a file named `name` is secret, if it is.
fn secret_file_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let core = undecorated(&lower);
    // Vim keeps `NAME`'s swap file as `.NAME.swp`: the name it stands for loses a dot.
    let swapped = lower.ends_with(".swp") || lower.ends_with(".swo");
    // The name as written too: `keys.txt` is age's key file, though `keys` alone is a word.
    let cores = [
        Some(lower.as_str()),
        Some(core),
        core.strip_prefix('.').filter(|_| swapped),
    ];
    cores
        .into_iter()
        .flatten()
        .find_map(|core| {
            credential_file(core)
                .or_else(|| env_file(core))
                .or_else(|| key_file(core))
                .or_else(|| history_file(core))
        })
        .or_else(|| token_file(name, core))
}

/// `github_token`, `.token`, `npm-token.txt`, `access.token`: a token by its name. Not the
/// word alone (a pattern `grep -r token` looks for), not an environment variable's name
/// (`GITHUB_TOKEN`, which `printenv` takes), not code (`token.rs` is a lexer's), and not
/// `tokenizer.json` or `tokens.json`, which are data.
fn token_file(name: &str, core: &str) -> Option<&'static str> {
    let variable = !name.chars().any(|c| c.is_ascii_lowercase());
    let token = core != "token" && core.split(['.', '_', '-']).any(|part| part == "token");
    (token && !variable && !is_code(core)).then_some("credentials")
}

/// Why `path` is secret by its own name or a secret directory it lies in (`.envs/`, `.ssh/`):
/// the name that made it so. Public keys and known hosts of a `.ssh` directory are not.
pub(crate) fn secret_by_names(names: &[String]) -> Option<(String, &'static str)> {
    let file = names.last()?;
    if is_public_ssh(names) {
        return None;
    }
    if let Some(what) = secret_file_name(file) {
        return Some((file.clone(), what));
    }
    let dirs = &names[..names.len() - 1];
    let secret_dir = dirs.iter().find(|d| SECRET_DIRS.contains(&d.as_str()));
    // `secrets/prod.json`, `credentials/api.txt`: the data in a directory named for secrets;
    // code there (`src/secrets/mod.rs` of a secrets library) is what builds need.
    let data_dir = dirs
        .iter()
        .find(|d| DATA_SECRET_DIRS.contains(&d.to_ascii_lowercase().as_str()))
        .filter(|_| !is_code(file));
    secret_dir
        .or(data_dir)
        .map(|dir| (format!("{dir}/"), "a directory of secrets"))
}

/// Directories whose data files are secrets (their code is not).
const DATA_SECRET_DIRS: &[&str] = &["secrets", "secret", "credentials", ".credentials", "creds"];

/// Whether `name` is a source file of a programming language (a module a build compiles or
/// imports), not data.
fn is_code(name: &str) -> bool {
    const CODE: &[&str] = &[
        "rs", "go", "py", "pyi", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "java",
        "kt", "kts", "scala", "rb", "php", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs", "fs",
        "swift", "m", "mm", "ex", "exs", "erl", "hrl", "hs", "ml", "mli", "clj", "dart", "lua",
        "pl", "pm", "vue", "svelte", "zig", "nim", "proto",
    ];
    name.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && CODE.contains(&ext))
}

/// Public keys and known hosts in a `.ssh` directory are not secrets.
pub(crate) fn is_public_ssh(names: &[String]) -> bool {
    let in_ssh = names.len() >= 2 && names[names.len() - 2] == ".ssh";
    let file = names.last().map(String::as_str).unwrap_or_default();
    in_ssh && (file.ends_with(".pub") || file == "known_hosts" || file == "authorized_keys")
}

/// Directories whose every file is a secret (`.gemini/` holds Gemini CLI's settings, whose
/// MCP servers carry tokens; `.netlify/` its linked site and token).
const SECRET_DIRS: &[&str] = &[
    ".age",
    ".gemini",
    ".netlify",
    ".envs",
    ".env.d",
    ".secrets",
    ".ssh",
    ".gnupg",
    ".password-store",
];

/// The name without what editors and backups add around it: Emacs's `#name#` and `.#name`,
/// `name~`, and backup or swap suffixes, however many.
fn undecorated(name: &str) -> &str {
    const SUFFIXES: &[&str] = &[
        ".bak", ".backup", ".old", ".orig", ".save", ".swp", ".swo", ".tmp", ".copy", ".prev",
        ".1", ".2", ".txt",
    ];
    let mut core = name
        .strip_prefix(".#")
        .unwrap_or(name)
        .trim_start_matches('#')
        .trim_end_matches(['#', '~']);
    while let Some(shorter) = SUFFIXES.iter().find_map(|s| core.strip_suffix(s)) {
        if shorter.is_empty() {
            break;
        }
        core = shorter.trim_end_matches('~');
    }
    core
}

/// `.env` and every name built on it (`.env.production`, `.env2`, `prod.env`), but for the
/// committed examples.
fn env_file(core: &str) -> Option<&'static str> {
    const EXAMPLES: &[&str] = &[
        "example", "sample", "template", "dist", "defaults", "schema",
    ];
    let example = core
        .rsplit(['.', '_', '-'])
        .next()
        .is_some_and(|last| EXAMPLES.contains(&last));
    // `env.production`, but not `env.rs`, `env.py` or `env.d.ts`: code named after what it reads.
    const STAGES: &[&str] = &[
        "production",
        "prod",
        "local",
        "staging",
        "stage",
        "dev",
        "development",
        "test",
        "testing",
        "ci",
        "secret",
        "secrets",
    ];
    let staged = core
        .strip_prefix("env.")
        .is_some_and(|stage| STAGES.contains(&stage));
    let env = core.starts_with(".env")
        || staged
        || (core.ends_with(".env") && core.len() > 4)
        || core == "env.local"
        || core == ".flaskenv";
    (env && !example).then_some("environment secrets")
}

/// Histories of shells, REPLs, database clients and editors, wherever they are: what someone
/// typed, passwords and tokens among it (`.bash_history`, `.lesshst`, `.viminfo`, Neovim's
/// `main.shada`, IPython's `history.sqlite`).
fn history_file(core: &str) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        ".viminfo",
        ".lesshst",
        ".histfile",
        ".dbshell",
        ".sh_history",
        "main.shada",
        "history.sqlite",
        "repl_history.jl",
    ];
    let dotted = core.starts_with('.') && (core.ends_with("history") || core.ends_with("_hist"));
    (dotted || core.ends_with("_history") || NAMES.contains(&core))
        .then_some("a history (typed secrets)")
}

/// Credential files by their whole name.
const CREDENTIAL_NAMES: &[&str] = &[
    ".envrc",
    "htpasswd",
    ".credentials",
    "secret.json",
    "credentials.xml",
    "k3s.yaml",
    "rclone.conf",
    "keys.txt",
    "token.txt",
    "api_key.txt",
    ".npmrc",
    ".pypirc",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".my.cnf",
    ".git-credentials",
    "credentials",
    ".boto",
    ".s3cfg",
    ".dockercfg",
    ".vault-token",
    ".terraformrc",
    ".htpasswd",
    "wp-config.php",
    "key.properties",
    "keystore.properties",
    "auth.json",
    "token.json",
    "token.pickle",
    "terraform.tfstate",
    "credentials.json",
    "service-account.json",
    "secrets.json",
    "secrets.yaml",
    "secrets.yml",
    ".dev.vars",
    "vault_pass",
    ".vault_pass",
    ".secrets",
    "secrets.toml",
    "local.settings.json",
    "credentials.yml",
    "credentials.yaml",
    "kubeconfig",
    // AI tools' MCP settings, which give servers tokens in their environment.
    "claude_desktop_config.json",
    "mcp_config.json",
    // Frameworks' local settings: Django's `settings_local.py`, Android's signing and API keys.
    "settings_local.py",
    "local_settings.py",
    "local.properties",
    // Compose's per-machine override, where local secrets go.
    // rbenv-vars' and nodenv-vars' per-project environment, Tomcat's `setenv.sh`, a
    // project's `env.sh` (sourced for its exports), Terraform's other CLI config spelling.
    ".rbenv-vars",
    ".nodenv-vars",
    "setenv.sh",
    "env.sh",
    "terraform.rc",
    "sbt-credentials",
    "settings.local.json",
    "docker-compose.override.yml",
    "docker-compose.override.yaml",
    "compose.override.yml",
    "compose.override.yaml",
];

fn credential_file(core: &str) -> Option<&'static str> {
    if CREDENTIAL_NAMES.contains(&core) {
        return Some("credentials");
    }
    // Docker's client configuration under another name (`.docker-config.json`): its `auths`.
    let docker = core.contains("docker") && core.contains("config") && core.ends_with(".json");
    if docker {
        return Some("credentials");
    }
    // `kubeconfig.yaml`, `prod.kubeconfig`; WireGuard's `wg0.conf`; Docker secrets'
    // `db_password.txt` (the `.txt` is gone by now).
    let kube = core.contains("kubeconfig");
    let wireguard = core.starts_with("wg") && core.ends_with(".conf");
    // A password kept in a text file (Docker's `db_password.txt`); the word alone is a word, and
    // `/etc/passwd` is no secret.
    let password = core.ends_with(".txt") && (core.contains("password") || core.contains("passwd"));
    // google-github-actions/auth writes `gha-creds-*.json` into the workspace; `.aws-creds`,
    // `db.creds`: credentials by their abbreviation.
    let creds = core.starts_with("gha-creds")
        || core.ends_with("-creds")
        || core.ends_with("_creds")
        || core.ends_with(".creds");
    // Ansible's vault passwords by any spelling (`ansible-vault.pass`, `vault-password.txt`);
    // values and settings files named for their secrets (`values-secret.yaml`).
    let vault = core.contains("vault") && (core.contains("pass") || core.ends_with(".key"));
    let named_secret = core.contains("secret")
        && [
            ".yaml",
            ".yml",
            ".json",
            ".toml",
            ".properties",
            ".ini",
            ".conf",
            ".cfg",
        ]
        .iter()
        .any(|ext| core.ends_with(ext));
    // `.npmrc.local`, `.pypirc.bak`: a credential file's name with a suffix of its own.
    let suffixed = [
        ".npmrc.",
        ".pypirc.",
        ".netrc.",
        ".pgpass.",
        ".git-credentials.",
    ]
    .iter()
    .any(|prefix| core.starts_with(prefix));
    if kube || wireguard || password || creds || vault || named_secret || suffixed {
        return Some("credentials");
    }
    // Templates of an environment file (`app.env.j2`, `.env.tpl`): filled in where they lie.
    if [".j2", ".jinja", ".tpl", ".tmpl"].iter().any(|ext| {
        core.strip_suffix(ext)
            .is_some_and(|stem| env_file(stem).is_some())
    }) {
        return Some("environment secrets");
    }
    // Cloud consoles' key downloads (AWS's `credentials.csv`, `rootkey.csv`, `*_accessKeys.csv`).
    let csv_key = core.strip_suffix(".csv").is_some_and(|stem| {
        ["credentials", "rootkey", "accesskey", "access_key"]
            .iter()
            .any(|word| stem.contains(word))
    });
    if csv_key {
        return Some("cloud access keys");
    }
    let json_key = core.strip_suffix(".json").is_some_and(|stem| {
        stem == "sa"
            || stem.starts_with("client_secret")
            || stem.contains("adminsdk")
            || (stem.contains("service") && stem.contains("account"))
            || ["-key", "_key", "credentials"]
                .iter()
                .any(|end| stem.ends_with(end))
    });
    json_key.then_some("a cloud service account key")
}

fn key_file(core: &str) -> Option<&'static str> {
    const STORES: &[&str] = &[
        ".pem",
        ".key",
        ".p12",
        ".pfx",
        ".jks",
        ".keystore",
        ".ovpn",
        ".tfvars",
        ".tfvars.json",
        ".tfstate",
        ".ppk",
        ".p8",
        ".gpg",
        ".kdbx",
        ".age",
        ".keychain",
        ".keychain-db",
    ];
    if STORES.iter().any(|ext| core.ends_with(ext)) {
        return Some("a private key or certificate store");
    }
    let armoured_private =
        core.ends_with(".asc") && (core.contains("priv") || core.contains("sec"));
    if armoured_private || core.starts_with("secring") {
        return Some("a private key");
    }
    // `id_rsa`, `deploy_rsa`, `github_ed25519`: OpenSSH's names, with no extension.
    const SSH: &[&str] = &[
        "_rsa",
        "_dsa",
        "_ecdsa",
        "_ed25519",
        "_ecdsa_sk",
        "_ed25519_sk",
        "_key",
        "-key",
    ];
    // A number after the name is a second key (`deploy_key2`, `id_rsa_1` is caught by `id_`).
    let numbered = core.trim_end_matches(|c: char| c.is_ascii_digit());
    // OpenSSH's own names: `id_` and a key type (`id_list` is not one).
    let openssh = ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_xmss"]
        .iter()
        .any(|name| core.starts_with(name));
    let ssh = !core.contains('.')
        && (openssh
            || SSH
                .iter()
                .any(|end| core.ends_with(end) || numbered.ends_with(end)));
    ssh.then_some("an SSH private key")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every category, several spellings each: the original, its backups and copies.
    const SECRET_NAMES: &[(&str, &[&str])] = &[
        (
            "dotenv",
            &[
                ".env",
                ".env.production",
                ".env_prod",
                ".env-local",
                ".env2",
                "prod.env",
                "env.local",
                ".envrc",
                ".flaskenv",
                ".ENV",
            ],
        ),
        (
            "tools' local settings with tokens",
            &[
                "claude_desktop_config.json",
                "mcp_config.json",
                ".gemini/settings.json",
                ".netlify/state.json",
                "settings_local.py",
                "local_settings.py",
                "local.properties",
                "docker-compose.override.yml",
                "compose.override.yaml",
            ],
        ),
        (
            "credentials by abbreviation and environment templates",
            &[
                "gha-creds-1a2b3c.json",
                ".rbenv-vars",
                ".nodenv-vars",
                "setenv.sh",
                "terraform.rc",
                "ansible-vault.pass",
                "vault-password.txt",
                "values-secret.yaml",
                "app-secrets.properties",
                ".claude/settings.local.json",
                ".age/key.txt",
                ".npmrc.local",
                ".aws-creds",
                "db_creds",
                "app.env.j2",
                ".env.tpl",
                "prod.env.tmpl",
            ],
        ),
        (
            "editor and backup copies",
            &[
                ".env~",
                "#.env#",
                ".#.env",
                ".env.swp",
                ".env.bak",
                ".env.local.bak",
                "id_rsa.bak",
                "..netrc.swp",
                "id_rsa.txt",
                "id_ed25519.old",
                ".git-credentials.bak",
                ".pgpass.bak~",
                "credentials.json.orig",
            ],
        ),
        (
            "keys",
            &[
                "id_ed25519",
                "deploy_key",
                "private_key",
                "ssh_key",
                "keys.txt",
                "deploy_rsa",
                "github_ed25519",
                "server.pem",
                "tls.key",
                "key.ppk",
                "AuthKey_ABC123.p8",
                "private.asc",
                "secring.gpg",
                "vault.kdbx",
                "release.keystore",
                "client.ovpn",
            ],
        ),
        (
            "cloud and service credentials",
            &[
                "credentials",
                "sa.json",
                "credentials.csv",
                "rootkey.csv",
                "admin_accessKeys.csv",
                "env.production",
                ".boto",
                ".s3cfg",
                "gcp-key.json",
                "serviceAccountKey.json",
                "client_secret_123.apps.googleusercontent.com.json",
                "token.json",
                "token.pickle",
                ".dockercfg",
                ".vault-token",
                ".terraformrc",
                "_netrc",
                "app-firebase-adminsdk-x1.json",
                "terraform.tfstate",
                "prod.tfvars",
            ],
        ),
        (
            "application secrets",
            &[
                "htpasswd",
                "terraform.tfvars.json",
                "prod.auto.tfvars.json",
                "kubeconfig.yaml",
                "k3s.yaml",
                "rclone.conf",
                "wg0.conf",
                "db_password.txt",
                "password.txt",
                "secret.json",
                "credentials.xml",
                "deploy_key2",
                ".htpasswd",
                "wp-config.php",
                "key.properties",
                "keystore.properties",
                "auth.json",
                "secrets.toml",
                "local.settings.json",
                "kubeconfig",
            ],
        ),
        (
            "data in a directory named for secrets, tokens by name (sandbox round 24)",
            &[
                "secrets/api.txt",
                "secrets/prod.json",
                "config/secrets/db.yaml",
                "Secrets/stripe",
                "credentials/gcp.json",
                "creds/deploy.cfg",
                "github_token",
                ".token",
                "npm-token.txt",
                "access.token",
                "gh_token",
                ".docker-config.json",
                "docker_config.json",
            ],
        ),
    ];

    #[test]
    fn secret_files_by_every_spelling_of_their_category() {
        for (category, names) in SECRET_NAMES {
            for name in *names {
                // A path: judged by its names, its directories included.
                let names: Vec<String> = name.split('/').map(String::from).collect();
                assert!(secret_by_names(&names).is_some(), "{category}: {name}");
            }
        }
    }

    #[test]
    fn harmless_names_are_not_secret() {
        for name in [
            ".env.example",
            ".env.production.example",
            ".env.sample",
            ".env.template",
            "environment.rs",
            "venv",
            "README.md",
            "id_ed25519.pub",
            "Cargo.toml",
            "package.json",
            "keys.rs",
            "monkey.json",
            "tokenizer.json",
            "signature.asc",
            "backup.sh",
            "env.rs",
            "env.py",
            "env.d.ts",
            "ar-SA.json",
            "id_list.txt",
            "id_map",
            "settings.py",
            "docker-compose.yml",
            "state.json",
            "template.j2",
            "index.tmpl",
            "scorecards.json",
            "token.rs",
            "token.go",
            "tokens.json",
            "tokenize.py",
            "token",
            "GITHUB_TOKEN",
        ] {
            assert!(secret_file_name(name).is_none(), "{name}");
        }
        // Code in a directory named for secrets is what a build compiles.
        for path in [
            "src/secrets/mod.rs",
            "pkg/credentials/store.go",
            "lib/secrets/index.ts",
        ] {
            let names: Vec<String> = path.split('/').map(String::from).collect();
            assert!(secret_by_names(&names).is_none(), "{path}");
        }
    }
}
