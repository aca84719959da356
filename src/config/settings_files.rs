//! Tools' settings files that a build needs whole but that may also carry a credential: yarn's
//! `.yarnrc.yml` names `yarnPath` beside `npmAuthToken`, Gradle's `gradle.properties` holds JVM
//! options beside signing passwords, Maven's `settings.xml` mirrors beside `<password>`. Hiding
//! every one would break builds; each is read once per walk and hidden when it holds anything
//! that looks like a credential.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The settings files judged by their content.
const SETTINGS_FILES: &[&str] = &[
    ".yarnrc.yml",
    ".yarnrc",
    "gradle.properties",
    "settings.xml",
    "nuget.config",
    "pip.conf",
    "pip.ini",
    "bunfig.toml",
    "auth.toml",
    ".sentryclirc",
    ".gemrc",
    ".condarc",
    "config.toml",
    "config",
    // AI tools' MCP servers, often given a token in their environment.
    ".mcp.json",
    "mcp.json",
    // The SFTP extension's connection, with its password.
    "sftp.json",
    "database.yml",
];

/// Words of a key (or an XML element) that holds a credential.
const CREDENTIAL_WORDS: &[&str] = &[
    "password",
    "passwd",
    "token",
    "secret",
    "apikey",
    "api_key",
    "api-key",
    "_auth",
    "npmauthident",
    "credential",
    "privatekey",
];

/// The largest settings file read (a bigger one is hidden unread).
const MAX_SETTINGS: u64 = 1 << 20;

/// Whether the file at `path` is a settings file holding a credential (or one that cannot be
/// read as a small regular file, which is hidden all the same).
pub(crate) fn holds_credential(path: &Path, name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    // `NuGet.Config`, `Settings.XML`: names as tools spell them.
    let name = name.to_ascii_lowercase();
    let name = name.as_str();
    if !SETTINGS_FILES.contains(&name) && !name.starts_with("appsettings.") {
        return false;
    }
    // `config` and `config.toml` are settings only where a tool keeps them: cargo's in
    // `.cargo/`, pip's in `pip/`.
    let parent = path.parent().and_then(Path::file_name);
    if matches!(name, "config" | "config.toml")
        && !parent.is_some_and(|p| p == ".cargo" || p == "pip")
    {
        return false;
    }
    match read_small(path, MAX_SETTINGS) {
        Some(text) => credential_in(&text),
        None => true,
    }
}

/// A regular file's text when it is at most `max` bytes, opened without following a link or
/// waiting on a FIFO (either would let what a call left behind hold up or redirect the read).
pub(crate) fn read_small(path: &Path, max: u64) -> Option<String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() > max {
        return None;
    }
    // Bytes, then text: a config written in another encoding (a Latin-1 `user.name`) is
    // still judged and scrubbed, its odd bytes shown as U+FFFD.
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether `text` names a credential, or holds a URL carrying one: a password
/// (`scheme://u:p@host`), any user of an HTTP(S) URL (`https://TOKEN@host`, as Gemfury and
/// private registries write it), or Anaconda's token path (`/t/TOKEN/`).
pub(crate) fn credential_in(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    if CREDENTIAL_WORDS.iter().any(|word| lower.contains(word)) || lower.contains("/t/") {
        return true;
    }
    let mut parts = lower.split("://");
    let mut before = parts.next().unwrap_or_default();
    for rest in parts {
        let http = before.ends_with("http") || before.ends_with("https");
        let authority = rest.split(['/', '"', '\'', ' ', '\n']).next().unwrap_or("");
        if authority
            .rsplit_once('@')
            .is_some_and(|(user, _)| http || user.contains(':'))
        {
            return true;
        }
        before = rest;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_with_a_credential_are_hidden_and_plain_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cases: &[(&str, &str, bool)] = &[
            (
                ".yarnrc.yml",
                "yarnPath: .yarn/releases/yarn.cjs\nnpmAuthToken: x\n",
                true,
            ),
            (".yarnrc.yml", "yarnPath: .yarn/releases/yarn.cjs\n", false),
            ("gradle.properties", "org.gradle.jvmargs=-Xmx2g\n", false),
            ("gradle.properties", "RELEASE_STORE_PASSWORD=x\n", true),
            (
                "settings.xml",
                "<settings><servers><server><password>x</password>",
                true,
            ),
            (
                "pip.conf",
                "[global]\nindex-url = https://u:p@pypi.example/simple\n",
                true,
            ),
            (
                "pip.conf",
                "[global]\nindex-url = https://pypi.example/simple\n",
                false,
            ),
            (
                ".cargo/config.toml",
                "[registries.x]\ntoken = \"t\"\n",
                true,
            ),
            (".cargo/config.toml", "[build]\njobs = 2\n", false),
            (
                "NuGet.Config",
                "<add key=\"ClearTextPassword\" value=\"x\" />",
                true,
            ),
            (
                ".gemrc",
                ":sources:\n- https://TOKEN@gem.fury.io/me/\n",
                true,
            ),
            (
                ".condarc",
                "channels:\n  - https://conda.anaconda.org/t/TOKEN/chan\n",
                true,
            ),
            (
                ".mcp.json",
                "{\"env\": {\"GITHUB_PERSONAL_ACCESS_TOKEN\": \"x\"}}",
                true,
            ),
            (
                ".yarnrc.yml",
                "npmRegistryServer: https://TOKEN@r.example\n",
                true,
            ),
            ("src/config.toml", "token = 1\n", false),
        ];
        for (relative, text, hidden) in cases {
            let path = dir.path().join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            let name = path.file_name().unwrap().to_owned();
            assert_eq!(
                holds_credential(&path, &name),
                *hidden,
                "{relative}: {text}"
            );
        }
    }
}
