//! The one list of secret locations: keys, credentials, tokens, shell histories and `.env`
//! files, recognised by their resolved location so a symlink cannot smuggle them out. The policy
//! asks or refuses before anything touches them; the sandbox hides them from whatever runs.

use std::path::{Path, PathBuf};

use super::secret_names::{is_public_ssh, secret_by_names};

/// Paths under the home directory that hold secrets (also recognised inside a project, where a
/// copied `.aws/credentials` is as secret as the original).
const HOME_SECRETS: &[(&str, &str)] = &[
    (".ssh", "SSH keys"),
    (".gnupg", "GnuPG keys"),
    // Shell history kept in databases and shells' universal variables (classifier round 15).
    (".local/share/atuin", "shell history and its sync key"),
    (
        ".config/fish/fish_variables",
        "fish's universal variables (tokens)",
    ),
    (".local/share/gh", "GitHub CLI data"),
    (
        ".config/Code/User/globalStorage",
        "VS Code's stored state (tokens)",
    ),
    (
        ".config/VSCodium/User/globalStorage",
        "VSCodium's stored state (tokens)",
    ),
    (
        ".config/Cursor/User/globalStorage",
        "Cursor's stored state (tokens)",
    ),
    (".aws", "AWS credentials"),
    (".config/gcloud", "Google Cloud credentials"),
    (".config/doctl", "DigitalOcean token"),
    (
        ".local/share/fish/fish_history",
        "shell history (typed secrets)",
    ),
    (".node_repl_history", "Node history (typed secrets)"),
    (".Xauthority", "X display credentials"),
    (".config/pypoetry/auth.toml", "Poetry credentials"),
    (".bundle/config", "Bundler credentials"),
    (".config/solana", "Solana wallet keys"),
    (".wakatime.cfg", "WakaTime key"),
    (".config/ngrok", "ngrok token"),
    (".config/configstore", "npm tools' tokens"),
    (".azure", "Azure credentials"),
    (".kube", "Kubernetes credentials"),
    (".netrc", "login credentials"),
    (".docker/config.json", "Docker registry credentials"),
    (".git-credentials", "git credentials"),
    (".config/gh", "GitHub CLI credentials"),
    (".config/hub", "GitHub credentials"),
    (".pgpass", "PostgreSQL passwords"),
    (".my.cnf", "MySQL passwords"),
    (".pypirc", "PyPI credentials"),
    (".npmrc", "npm tokens"),
    (".yarnrc.yml", "yarn tokens"),
    (".gem/credentials", "RubyGems credentials"),
    (".cargo/credentials", "crates.io token"),
    (".cargo/credentials.toml", "crates.io token"),
    (
        ".terraform.d/credentials.tfrc.json",
        "Terraform Cloud token",
    ),
    (".vault-token", "Vault token"),
    (".s3cfg", "S3 credentials"),
    (".boto", "cloud credentials"),
    (".config/rclone", "cloud storage credentials"),
    (".config/op", "1Password CLI data"),
    (".local/share/keyrings", "the desktop keyring"),
    (".password-store", "the password store"),
    (".config/google-chrome", "browser cookies and passwords"),
    (".config/chromium", "browser cookies and passwords"),
    (".mozilla", "browser cookies and passwords"),
    (".config/swebash-ai", "this tool's own settings and keys"),
    (".config/git/credentials", "git credentials"),
    (
        ".config/containers/auth.json",
        "container registry credentials",
    ),
    (".m2/settings.xml", "Maven credentials"),
    (".m2/settings-security.xml", "Maven master password"),
    (".nuget/NuGet/NuGet.Config", "NuGet credentials"),
    (".pulumi/credentials.json", "Pulumi token"),
    (".fly/config.yml", "Fly.io token"),
    (".gradle/gradle.properties", "Gradle credentials"),
    (".composer/auth.json", "Composer credentials"),
    (".bash_history", "shell history (typed secrets)"),
    (".zsh_history", "shell history (typed secrets)"),
    (".python_history", "Python history (typed secrets)"),
    (".psql_history", "database history (typed secrets)"),
    (".mysql_history", "database history (typed secrets)"),
    (".claude", "AI assistant credentials"),
    (".codex", "AI assistant credentials"),
    (".config/sops", "SOPS keys"),
    (".huggingface/token", "Hugging Face token"),
    (".cache/huggingface/token", "Hugging Face token"),
    (".kaggle", "Kaggle credentials"),
    (".databrickscfg", "Databricks token"),
    (".oci", "Oracle Cloud credentials"),
    (".terraformrc", "Terraform credentials"),
    (".vercel", "Vercel credentials"),
    (".config/heroku", "Heroku credentials"),
    (".config/composer/auth.json", "Composer credentials"),
    (".config/glab-cli", "GitLab CLI credentials"),
    (".config/github-copilot", "Copilot credentials"),
    (".ansible/vault_pass", "Ansible vault password"),
    (".snowflake", "Snowflake credentials"),
    (".config/gcloud", "Google Cloud credentials"),
];

const SYSTEM_SECRETS: &[(&str, &str)] = &[
    ("/etc/shadow", "system password hashes"),
    ("/etc/gshadow", "system password hashes"),
    ("/etc/sudoers", "sudo rules"),
    ("/etc/sudoers.d", "sudo rules"),
    ("/etc/ssh", "SSH host keys"),
    ("/etc/shadow-", "system password hashes (backup)"),
    ("/etc/gshadow-", "system password hashes (backup)"),
    ("/var/backups", "system backups (password hashes)"),
    ("/run/secrets", "container secrets"),
    ("/var/run/secrets", "container and Kubernetes secrets"),
    ("/root", "root's home directory"),
    ("/etc/ssl/private", "TLS private keys"),
    ("/etc/letsencrypt", "TLS private keys"),
    ("/etc/wireguard", "VPN keys"),
    ("/etc/ipsec.secrets", "VPN keys"),
    ("/etc/ppp/chap-secrets", "dial-up passwords"),
    (
        "/etc/NetworkManager/system-connections",
        "Wi-Fi and VPN passwords",
    ),
    ("/etc/krb5.keytab", "Kerberos keys"),
    ("/etc/rancher", "Kubernetes credentials"),
    ("/etc/kubernetes", "Kubernetes credentials"),
    ("/var/lib/kubelet", "Kubernetes credentials"),
    ("/etc/docker/certs.d", "registry credentials"),
    ("/var/spool/cron", "other users' crontabs"),
    ("/var/lib/sss", "cached login credentials"),
    ("/etc/security/opasswd", "old password hashes"),
    // Podman's and skopeo's logins (`containers/auth.json`), Kerberos caches, agent sockets,
    // FUSE mounts of remote homes.
    (
        "/run/user",
        "users' runtime directories (logins, agent sockets)",
    ),
];

/// Why `path` is sensitive, if it is. `path` should be absolute; checked as written and resolved.
pub(crate) fn sensitive(path: &Path, home: Option<&Path>) -> Option<String> {
    // Public keys and the known hosts in ~/.ssh are not secrets.
    let public = path.parent().is_some_and(|p| p.ends_with(".ssh"))
        && path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with(".pub") || n == "known_hosts");
    if let Some(home) = home
        && let Ok(rest) = path.strip_prefix(home)
        && let Some((prefix, what)) = HOME_SECRETS.iter().find(|(p, _)| rest.starts_with(p))
        && !public
    {
        return Some(format!("~/{prefix} ({what})"));
    }
    // The same under a relocated `$XDG_CONFIG_HOME` (gh, glab, hub follow it).
    if let Some((place, prefix, what)) = relocated_home_secrets()
        .into_iter()
        .find(|(place, _, _)| path.starts_with(place))
        && !public
    {
        return Some(format!("{} ({what}; ~/{prefix})", place.display()));
    }
    // `/root` is someone else's home unless it is ours (then the home rules above apply).
    let own_home = |prefix: &str| home.is_some_and(|h| h == Path::new(prefix));
    if let Some((prefix, what)) = SYSTEM_SECRETS
        .iter()
        .find(|(p, _)| path.starts_with(p) && !own_home(p))
    {
        return Some(format!("{prefix} ({what})"));
    }
    let text = path.to_string_lossy();
    if text.starts_with("/proc/") && text.ends_with("/environ") {
        return Some("a process environment (/proc/*/environ)".into());
    }
    if let Some(what) = process_or_device_secret(path) {
        return Some(what.into());
    }
    secret_in_tree(path)
        .map(|(name, what)| format!("{name} ({what})"))
        .or_else(|| super::exposed::holds(path))
        .or_else(|| {
            // A tool's settings file holding a credential (`database.yml`, `.mcp.json`): the
            // sandbox hides it by the same rule.
            let name = path.file_name()?;
            path.symlink_metadata().ok()?;
            super::settings_files::holds_credential(path, name).then(|| {
                format!(
                    "{} (a settings file holding a credential)",
                    name.to_string_lossy()
                )
            })
        })
}

/// Memory and views of other processes, and raw memory devices: `/proc/PID/mem` holds the same
/// strings as `/proc/PID/environ`; `/proc/PID/root` and `cwd` are another process's file system.
fn process_or_device_secret(path: &Path) -> Option<&'static str> {
    let mut parts = path
        .components()
        .skip(1)
        .map(|c| c.as_os_str().to_string_lossy());
    let top = parts.next()?;
    let second = parts.next();
    let third = parts.next();
    match top.as_ref() {
        "proc" => match (second.as_deref(), third.as_deref()) {
            (Some("kcore" | "kmem" | "keys"), _) => Some("kernel memory (/proc/kcore)"),
            (Some(_), Some("mem" | "root" | "cwd" | "fd" | "map_files" | "task")) => {
                Some("another process's memory or files (/proc/*/mem, root, cwd)")
            }
            _ => None,
        },
        "dev" => matches!(second.as_deref(), Some("mem" | "kmem" | "port" | "core"))
            .then_some("raw memory (/dev/mem)"),
        "sys" => (second.as_deref() == Some("firmware")).then_some("firmware variables"),
        _ => None,
    }
}

/// The home's secret locations under `.config/`, `.local/share/` and `.local/state/` where
/// `XDG_CONFIG_HOME`, `XDG_DATA_HOME` or `XDG_STATE_HOME` put them elsewhere: (the place, the
/// entry it stands for, what it holds). Tools that follow the variables keep their tokens there
/// (classifier round 14: `cat $XDG_CONFIG_HOME/gh/hosts.yml` ran unasked).
pub(crate) fn relocated_home_secrets() -> Vec<(PathBuf, &'static str, &'static str)> {
    let mut out = Vec::new();
    for (variable, below_home) in [
        ("XDG_CONFIG_HOME", ".config/"),
        ("XDG_DATA_HOME", ".local/share/"),
        ("XDG_STATE_HOME", ".local/state/"),
    ] {
        let Some(base) = std::env::var_os(variable).filter(|v| !v.is_empty()) else {
            continue;
        };
        let base = PathBuf::from(base);
        if !base.is_absolute() {
            continue;
        }
        for (entry, what) in HOME_SECRETS {
            if let Some(rest) = entry.strip_prefix(below_home) {
                out.push((base.join(rest), *entry, *what));
            }
        }
    }
    out
}

/// Secret locations under the home directory, relative to it.
pub(crate) fn home_secrets() -> impl Iterator<Item = &'static str> {
    HOME_SECRETS.iter().map(|(path, _)| *path)
}

/// Secret locations of the system.
pub(crate) fn system_secrets() -> impl Iterator<Item = &'static str> {
    SYSTEM_SECRETS.iter().map(|(path, _)| *path)
}

/// Why `path` is secret by its names: a home secret such as `.aws` or `.docker/config.json`
/// copied anywhere (by its own description), its file name (`.env~`, `deploy_rsa`), or a secret
/// directory it lies in (`.envs/`). Returns the name that made it so.
pub(crate) fn secret_in_tree(path: &Path) -> Option<(String, &'static str)> {
    let names: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if is_public_ssh(&names) {
        return None;
    }
    let home_secret = HOME_SECRETS
        .iter()
        .filter(|(entry, _)| !PROJECT_SETTINGS.contains(entry))
        .find(|(entry, _)| contains_run(&names, entry));
    if let Some((entry, what)) = home_secret {
        return Some(((*entry).to_string(), *what));
    }
    secret_by_names(&names)
}

/// Home secrets whose name, inside a project, is that project's shared settings rather than
/// someone's credentials (`.claude/commands`, yarn's `yarnPath`).
const PROJECT_SETTINGS: &[&str] = &[".claude", ".codex", ".yarnrc.yml"];

/// Whether the path's names contain `entry`'s (`a/b`) one after another.
fn contains_run(names: &[String], entry: &str) -> bool {
    let parts: Vec<&str> = entry.split('/').collect();
    names
        .windows(parts.len())
        .any(|window| window.iter().zip(&parts).all(|(name, part)| name == part))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_in_secret_directories_are_secret_wherever_the_directory_is() {
        for path in [
            "/p/.aws/credentials",
            "/p/sub/.aws/config",
            "/p/.docker/config.json",
            "/p/.envs/.production/.django",
            "/p/.env.d/prod",
            "/p/.kube/config",
            "/p/.ssh/deploy",
            "/p/.config/gcloud/application_default_credentials.json",
        ] {
            assert!(secret_in_tree(Path::new(path)).is_some(), "{path}");
        }
        for path in [
            "/p/.ssh/id_ed25519.pub",
            "/p/.ssh/known_hosts",
            "/p/.docker/Dockerfile",
            "/p/.claude/commands/review.md",
            "/p/.yarnrc.yml",
            "/p/src/main.rs",
        ] {
            assert!(secret_in_tree(Path::new(path)).is_none(), "{path}");
        }
    }
}
