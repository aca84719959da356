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

/// Directories not walked: git's (read-only to calls). A build's outputs are (a workspace
/// member can be placed there).
const NOT_WALKED: &[&str] = &[".git"];

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
        // Installed packages' manifests too: npm reads them when it builds its tree.
        if kind.is_file() && MANIFESTS.contains(&name.as_ref()) {
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
    manifests.iter().find_map(|path| {
        let name = path.file_name()?.to_string_lossy();
        let Ok(text) = std::fs::read_to_string(path) else {
            return Some(format!("{} cannot be read as text", path.display()));
        };
        let dir = path.parent().unwrap_or(project);
        foreign_source(&name, &text)
            .or_else(|| local_path_out(&name, &text, dir, project))
            .map(|what| format!("{} names {what}", path.display()))
    })
}

const MANIFESTS: &[&str] = &[
    ".package-lock.json",
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
    let lexical = crate::config::lexical(&base.join(target));
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
        "yarn.lock" | "pnpm-lock.yaml" => text_lock(text),
        "Cargo.toml" => cargo_manifest(text),
        "Cargo.lock" => cargo_lock(text),
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
    let mut workspaces = Vec::new();
    if let Some(value) = manifest.get("workspaces") {
        strings_in(value, &mut workspaces);
    }
    if let Some(out) = workspaces
        .iter()
        .find(|w| w.starts_with('/') || w.contains(".."))
    {
        return Some(format!("the workspace {out} outside the project"));
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

/// A source of a yarn or pnpm lockfile other than the registry: a URL elsewhere, or a
/// protocol that fetches from elsewhere or runs something (`github:`, `git+`, `file:`,
/// `patch:`, `exec:`).
fn text_lock(text: &str) -> Option<String> {
    const PROTOCOLS: &[&str] = &[
        "@github:",
        "@gitlab:",
        "@bitbucket:",
        "@git",
        "@file:",
        "@link:",
        "@portal:",
        "@patch:",
        "@exec:",
        "@http",
    ];
    for line in text.lines() {
        let mut rest = line;
        while let Some(at) = rest.find("://") {
            let start = rest[..at]
                .rfind(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '@'))
                .map_or(0, |i| i + 1);
            let url = rest[start..]
                .split(['"', '\'', ' ', ',', '}', '#'])
                .next()
                .unwrap_or_default();
            if !from_registry(url) {
                return Some(format!("the source {url}"));
            }
            rest = &rest[at + 3..];
        }
        if let Some(protocol) = PROTOCOLS.iter().find(|p| line.contains(*p)) {
            return Some(format!("a source by {}", protocol.trim_start_matches('@')));
        }
    }
    None
}

/// Keys of `Cargo.toml` that name a source other than crates.io, wherever they are written
/// (a dependency's table, a dotted key, a quoted one).
const CARGO_FOREIGN_KEYS: &[&str] = &["git", "registry", "registry-index", "index"];

/// Tables of `Cargo.toml` that replace or add sources.
const CARGO_FOREIGN_TABLES: &[&str] = &["patch", "source", "registries", "replace"];

/// A source of `Cargo.toml` other than crates.io: read as TOML, every key at every depth; what
/// is not TOML refuses.
fn cargo_manifest(text: &str) -> Option<String> {
    let Ok(manifest) = text.parse::<toml::Table>() else {
        return Some("something that is not TOML".into());
    };
    if let Some(table) = CARGO_FOREIGN_TABLES
        .iter()
        .find(|t| manifest.contains_key(**t))
    {
        return Some(format!("a [{table}] table"));
    }
    foreign_key(&toml::Value::Table(manifest))
}

fn foreign_key(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::Table(table) => table.iter().find_map(|(key, value)| {
            if CARGO_FOREIGN_KEYS.contains(&key.as_str()) {
                let shown = value.as_str().unwrap_or("…");
                return Some(format!("the source `{key} = {shown}`"));
            }
            foreign_key(value)
        }),
        toml::Value::Array(items) => items.iter().find_map(foreign_key),
        _ => None,
    }
}

/// A `source` of `Cargo.lock` other than crates.io's index.
fn cargo_lock(text: &str) -> Option<String> {
    let Ok(lock) = text.parse::<toml::Table>() else {
        return Some("something that is not TOML".into());
    };
    let packages = lock.get("package").and_then(toml::Value::as_array);
    packages.into_iter().flatten().find_map(|package| {
        let source = package.get("source")?.as_str()?;
        (!CARGO_SOURCES.contains(&source)).then(|| format!("the source {source}"))
    })
}

/// A local path a `Cargo.toml` depends on that lies outside the project (`path = "../../x"`)
/// or in git's directory: the fetch would read there, and the walk did not look.
fn local_path_out(name: &str, text: &str, dir: &Path, project: &Path) -> Option<String> {
    if name != "Cargo.toml" {
        return None;
    }
    let manifest = text.parse::<toml::Table>().ok()?;
    let mut paths = Vec::new();
    path_values(&toml::Value::Table(manifest), &mut paths);
    paths.into_iter().find_map(|path| {
        let full = crate::config::lexical(&dir.join(&path));
        let within = full.strip_prefix(project).ok();
        let built = within.is_some_and(|w| {
            w.components()
                .any(|c| NOT_WALKED.iter().any(|n| c.as_os_str() == *n))
        });
        (within.is_none() || built).then(|| format!("the path {path} outside what was checked"))
    })
}

fn path_values(value: &toml::Value, out: &mut Vec<String>) {
    match value {
        toml::Value::Table(table) => {
            for (key, value) in table {
                match (key.as_str(), value) {
                    ("path", toml::Value::String(path)) => out.push(path.clone()),
                    _ => path_values(value, out),
                }
            }
        }
        toml::Value::Array(items) => items.iter().for_each(|v| path_values(v, out)),
        _ => {}
    }
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
        for spelling in [
            "[dependencies]\nx.git = \"http://evil/x\"",
            "[dependencies]\nx = { \"git\" = \"http://evil/x\" }",
            "[ patch.crates-io ]\nx = { path = \"y\" }",
            "[target.'cfg(unix)'.dependencies]\nx = { version = \"1\", registry-index = \"sparse+http://evil/\" }",
            "[dependencies\nbroken",
        ] {
            assert!(
                foreign_source("Cargo.toml", spelling).is_some(),
                "{spelling}"
            );
        }
        assert!(
            foreign_source(
                "Cargo.lock",
                "[[package]]\nname=\"x\"\nsource=\"git+http://evil/x\"\n"
            )
            .is_some()
        );
        for lock in [
            "\"x@npm:1.0.0\":\n  resolution: \"x@https://evil/x.tgz\"\n",
            "\"x@github:o/r\":\n  resolution: \"x@github:o/r#abc\"\n",
            "\"x@patch:x@1#./p.patch\":\n  version: 1\n",
        ] {
            assert!(foreign_source("yarn.lock", lock).is_some(), "{lock}");
        }
        let berry =
            "\"left-pad@npm:^1.3.0\":\n  resolution: \"left-pad@npm:1.3.0\"\n  checksum: abc\n";
        assert_eq!(foreign_source("yarn.lock", berry), None);
        let workspaces = r#"{"workspaces": ["packages/*", "../elsewhere"]}"#;
        assert!(foreign_source("package.json", workspaces).is_some());
        let dir = Path::new("/p/crates/a");
        let out = "[dependencies]\nx = { path = \"../../../elsewhere\" }\n";
        assert!(local_path_out("Cargo.toml", out, dir, Path::new("/p")).is_some());
        let git = "[dependencies]\nx = { path = \"../../.git/x\" }\n";
        assert!(local_path_out("Cargo.toml", git, dir, Path::new("/p")).is_some());
        let inside = "[dependencies]\nx = { path = \"../b\" }\n";
        assert_eq!(
            local_path_out("Cargo.toml", inside, dir, Path::new("/p")),
            None
        );
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

    #[test]
    fn a_manifest_in_a_builds_outputs_is_read_too() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(project.join("target/w")).unwrap();
        std::fs::write(
            project.join("package.json"),
            r#"{"workspaces":["target/w"]}"#,
        )
        .unwrap();
        assert_eq!(refusal(&project), None);
        let member = r#"{"dependencies":{"x":"http://127.0.0.1/SECRET.tgz"}}"#;
        std::fs::write(project.join("target/w/package.json"), member).unwrap();
        assert!(refusal(&project).is_some());
    }
}
