//! Whether a dependency fetch would go anywhere but the package registry, or write anywhere but
//! the project and the caches.
//!
//! The fetch gets the network because it runs no project code, but the project's files still
//! steer it: a `package.json` dependency given as a URL, a lockfile's `resolved` URL, a
//! `Cargo.toml` git dependency make the manager connect to any host (a secret a call wrote into
//! the URL goes with it; a cloud metadata answer comes back into the cache), and a project file
//! made a link into a cache makes the manager write the cache through it (a lockfile written
//! over a cached program that `npx` runs later). With any of these the fetch gets no network
//! and no cache: the command runs offline, and what it misses a person decides.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::walk;

/// Hosts the default registries download from.
const REGISTRY_URLS: &[&str] = &[
    "https://registry.npmjs.org/",
    "https://registry.yarnpkg.com/",
    "https://registry.npmmirror.com/",
];

/// Sources `Cargo.lock` may name: crates.io's index only.
const CARGO_SOURCES: &[&str] = &[
    "registry+https://github.com/rust-lang/crates.io-index",
    "sparse+https://index.crates.io/",
];

/// Directories of fetched or built things, not the project's own manifests (links in them
/// are looked at all the same: the fetch writes `node_modules`).
const FETCHED: &[&str] = &["node_modules", "target", ".venv", "venv", "vendor"];

/// Directories not walked at all: git's (read-only to calls), a build's outputs (no fetch
/// writes there).
const NOT_WALKED: &[&str] = &[".git", "target"];

/// Why a fetch of the project must not get the network, if it must not: a source other than
/// the registry in a manifest or lockfile, or a link out of the project.
pub(crate) fn refusal(project: &Path) -> Option<String> {
    let mut manifests: Vec<PathBuf> = Vec::new();
    let mut link_out: Option<PathBuf> = None;
    let complete = walk::walk(project, &mut |path, name, kind| {
        if kind.is_symlink() && link_out.is_none() && leads_out(path, project) {
            link_out = Some(path.to_path_buf());
        }
        let name = name.to_string_lossy();
        let fetched = || {
            let within = path.strip_prefix(project).unwrap_or(path);
            within
                .components()
                .any(|c| FETCHED.iter().any(|f| c.as_os_str() == *f))
        };
        if kind.is_file() && MANIFESTS.contains(&name.as_ref()) && !fetched() {
            manifests.push(path.to_path_buf());
        }
        kind.is_dir() && !NOT_WALKED.contains(&name.as_ref())
    });
    if !complete {
        return Some("the project is too big to check what its fetch would reach".into());
    }
    if let Some(link) = link_out {
        return Some(format!(
            "{} is a link out of the project, which a fetch could write through",
            link.display()
        ));
    }
    // npm's copy of the lockfile in `node_modules` steers the next fetch too.
    let hidden_lock = project.join("node_modules/.package-lock.json");
    if hidden_lock.is_file() {
        manifests.push(hidden_lock);
    }
    manifests.iter().find_map(|path| {
        let name = path.file_name()?.to_string_lossy();
        let text = std::fs::read_to_string(path).ok()?;
        foreign_source(&name, &text).map(|what| format!("{} names {what}", path.display()))
    })
}

const MANIFESTS: &[&str] = &[
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "Cargo.toml",
    "Cargo.lock",
];

/// Whether the link at `path` leads out of `project` (by its text or where it resolves; a
/// dangling one is judged by its text: writing through it creates its target).
fn leads_out(path: &Path, project: &Path) -> bool {
    let Ok(target) = std::fs::read_link(path) else {
        return true;
    };
    let base = path.parent().unwrap_or(project);
    let lexical = super::gitconfig::lexical(&base.join(target));
    if !lexical.starts_with(project) {
        return true;
    }
    path.canonicalize()
        .is_ok_and(|real| !real.starts_with(project))
}

/// What in a manifest or lockfile named `name` is a source other than the registry.
fn foreign_source(name: &str, text: &str) -> Option<String> {
    match name {
        "package.json" => npm_manifest(text),
        "package-lock.json" | "npm-shrinkwrap.json" | ".package-lock.json" => npm_lock(text),
        "yarn.lock" => text.lines().find_map(|line| {
            let value = line.trim().strip_prefix("resolved ")?.trim_matches('"');
            (!from_registry(value)).then(|| format!("the source {value}"))
        }),
        "pnpm-lock.yaml" => text.lines().find_map(|line| {
            let line = line.trim();
            let named = ["tarball:", "repo:", "url:"]
                .iter()
                .any(|k| line.contains(k));
            named.then(|| format!("the source {line}"))
        }),
        "Cargo.toml" => cargo_manifest(text),
        "Cargo.lock" => text.lines().find_map(|line| {
            let value = line.trim().strip_prefix("source = ")?.trim_matches('"');
            (!CARGO_SOURCES.contains(&value)).then(|| format!("the source {value}"))
        }),
        _ => None,
    }
}

fn from_registry(url: &str) -> bool {
    REGISTRY_URLS.iter().any(|r| url.starts_with(r))
}

/// A dependency of `package.json` given by anything but a version range (a URL, a git or
/// GitHub spec, a file or a link), in any of the sections npm, yarn and pnpm read.
fn npm_manifest(text: &str) -> Option<String> {
    let Ok(manifest) = serde_json::from_str::<Value>(text) else {
        return Some("something that is not JSON".into());
    };
    let sections = [
        "dependencies",
        "devDependencies",
        "optionalDependencies",
        "peerDependencies",
        "overrides",
        "resolutions",
    ];
    let mut specs = Vec::new();
    for section in sections {
        if let Some(value) = manifest.get(section) {
            strings_in(value, &mut specs);
        }
    }
    if let Some(value) = manifest.get("pnpm").and_then(|p| p.get("overrides")) {
        strings_in(value, &mut specs);
    }
    specs
        .into_iter()
        .find(|spec| !version_spec(spec))
        .map(|spec| format!("the dependency {spec}"))
}

/// A version range, a tag, a workspace or catalog reference, or an alias of a registry
/// package (`npm:name@1`): all fetched from the registry, if at all.
fn version_spec(spec: &str) -> bool {
    let spec = spec.trim();
    if let Some(rest) = spec.strip_prefix("npm:") {
        // `npm:@scope/name@range`: a registry name, then a range.
        let name_end = rest.rfind('@').filter(|at| *at > 0).unwrap_or(rest.len());
        let (name, range) = rest.split_at(name_end);
        let scoped = name.strip_prefix('@').unwrap_or(name);
        return scoped.matches('/').count() <= usize::from(name.starts_with('@'))
            && !range.contains([':', '/']);
    }
    ["workspace:", "catalog:"]
        .iter()
        .any(|p| spec.starts_with(p))
        || !spec.contains([':', '/'])
}

fn strings_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Object(map) => map.values().for_each(|v| strings_in(v, out)),
        Value::Array(items) => items.iter().for_each(|v| strings_in(v, out)),
        _ => {}
    }
}

/// A `resolved` of an npm lockfile that is not the registry (a relative path inside the
/// project, a workspace's, is no source).
fn npm_lock(text: &str) -> Option<String> {
    let Ok(lock) = serde_json::from_str::<Value>(text) else {
        return Some("something that is not JSON".into());
    };
    let mut resolved = Vec::new();
    resolved_in(&lock, &mut resolved);
    resolved
        .into_iter()
        .find(|url| {
            let local = !url.contains(':') && !url.starts_with('/') && !url.contains("..");
            !from_registry(url) && !local
        })
        .map(|url| format!("the source {url}"))
}

fn resolved_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("resolved", Value::String(url)) => out.push(url.clone()),
                    _ => resolved_in(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| resolved_in(v, out)),
        _ => {}
    }
}

/// A dependency of `Cargo.toml` from git or another registry, or a source replaced or patched:
/// read by its keys, so a comment that names one refuses too (it fails closed).
fn cargo_manifest(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.trim();
        let key = |k: &str| {
            line.split(['{', ',']).any(|part| {
                let part = part.trim_start();
                part.strip_prefix(k)
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            })
        };
        let foreign = key("git")
            || key("registry")
            || key("registry-index")
            || line.starts_with("[patch")
            || line.starts_with("[source")
            || line.starts_with("[registries");
        foreign.then(|| format!("the source in `{line}`"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_dependencies_are_no_foreign_source_and_everything_else_is() {
        let plain = r#"{"name":"a","repository":{"url":"https://github.com/o/a"},
            "dependencies":{"left-pad":"^1.3.0","b":"workspace:*","c":"npm:@s/c@2","d":"latest"}}"#;
        assert_eq!(foreign_source("package.json", plain), None);
        for spec in [
            "http://127.0.0.1/x.tgz",
            "git+https://github.com/o/r.git",
            "github:o/r",
            "o/r",
            "file:../../.npm/_npx/x",
            "link:../x",
            "npm:o/r",
        ] {
            let manifest = format!(r#"{{"devDependencies":{{"x":"{spec}"}}}}"#);
            assert!(
                foreign_source("package.json", &manifest).is_some(),
                "{spec}"
            );
            let overrides = format!(r#"{{"overrides":{{"x":{{"y":"{spec}"}}}}}}"#);
            assert!(
                foreign_source("package.json", &overrides).is_some(),
                "{spec}"
            );
        }
        let lock = r#"{"packages":{"":{},"node_modules/a":{"resolved":"https://registry.npmjs.org/a/-/a-1.tgz",
            "funding":{"url":"https://github.com/sponsors/x"}},"packages/w":{"resolved":"packages/w","link":true}}}"#;
        assert_eq!(foreign_source("package-lock.json", lock), None);
        let exfil =
            r#"{"packages":{"node_modules/a":{"resolved":"http://127.0.0.1/SECRET/a.tgz"}}}"#;
        assert!(foreign_source("package-lock.json", exfil).is_some());
        assert!(
            foreign_source("yarn.lock", "a@1:\n  resolved \"http://evil/a.tgz#1\"\n").is_some()
        );
        assert!(
            foreign_source(
                "pnpm-lock.yaml",
                "  resolution: {tarball: http://evil/a.tgz}\n"
            )
            .is_some()
        );
    }

    #[test]
    fn cargo_git_and_other_registries_are_foreign_sources() {
        let plain = "[package]\nname = \"a\"\nrepository = \"https://github.com/o/a\"\n\
                     [dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n\
                     local = { path = \"../local\" }\n";
        assert_eq!(foreign_source("Cargo.toml", plain), None);
        for line in [
            "x = { git = \"http://127.0.0.1/SECRET\" }",
            "x = {version=\"1\",registry=\"mine\"}",
            "[patch.crates-io]",
            "[dependencies.x]\ngit = \"https://evil/x\"",
            "[source.crates-io]",
        ] {
            let manifest = format!("[dependencies]\n{line}\n");
            assert!(foreign_source("Cargo.toml", &manifest).is_some(), "{line}");
        }
        let lock = "[[package]]\nname = \"serde\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        assert_eq!(foreign_source("Cargo.lock", lock), None);
        let git = "[[package]]\nname = \"x\"\nsource = \"git+http://127.0.0.1/x#abc\"\n";
        assert!(foreign_source("Cargo.lock", git).is_some());
    }

    #[test]
    fn a_link_out_of_the_project_refuses_the_fetch_and_one_inside_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("p");
        std::fs::create_dir_all(project.join("node_modules/.bin")).unwrap();
        std::fs::write(
            project.join("package.json"),
            r#"{"dependencies":{"a":"1"}}"#,
        )
        .unwrap();
        std::os::unix::fs::symlink("../a/cli.js", project.join("node_modules/.bin/a")).unwrap();
        assert_eq!(refusal(&project), None);
        std::os::unix::fs::symlink(root.join("cache/cli.js"), project.join("package-lock.json"))
            .unwrap();
        let why = refusal(&project).unwrap_or_default();
        assert!(why.contains("link out of the project"), "{why}");
    }
}
