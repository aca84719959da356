//! The model the embedded engine runs, resolved once from the settings: a catalogue entry, a GGUF
//! file or a URL; where its file lives; and whether the file there is the one expected (its
//! size, and the SHA-256 recorded beside it, `NAME.gguf.sha256`, when it was downloaded and
//! verified).

use std::path::{Path, PathBuf};

use super::catalogue::{self, DEFAULT_MODEL, Entry};
use super::checksum::{recorded_sha, sha256_of, sidecar_of};
use crate::config::LocalSettings;

/// The model to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LocalModel {
    /// The catalogue name, else the file's name.
    pub(crate) name: String,
    /// Where the GGUF file is (or will be, once downloaded).
    pub(crate) file: PathBuf,
    /// How to get it; `None` for a file the user named.
    pub(crate) download: Option<Download>,
    pub(crate) entry: Option<&'static Entry>,
}

/// Where a model comes from and what it must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Download {
    pub(crate) url: String,
    /// The exact size, when pinned.
    pub(crate) size: Option<u64>,
    /// The size to tell the user (pinned or approximate), when known.
    pub(crate) shown_size: Option<u64>,
    /// The SHA-256 to check; `None`: the one the host announces, learned at download.
    pub(crate) sha256: Option<String>,
    /// What `ai --pull` takes to fetch this model.
    pub(crate) pull: String,
}

/// Why no model could be chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChooseError {
    /// Not a catalogue name, a path or a URL; `origin` names where it was set.
    Unknown { value: String, origin: String },
    /// Neither `XDG_CACHE_HOME` nor `HOME` says where to keep a download.
    NoCacheDir,
}

impl ChooseError {
    /// The error in one line, with what would be valid.
    pub(crate) fn parts(&self) -> (String, String, String) {
        match self {
            ChooseError::Unknown { value, origin } => (
                origin.clone(),
                value.clone(),
                format!(
                    "a model of the catalogue ({}), a .gguf file or an http(s) URL",
                    catalogue::names()
                ),
            ),
            ChooseError::NoCacheDir => (
                "XDG_CACHE_HOME".into(),
                String::new(),
                "a directory to keep downloaded models in (or set HOME)".into(),
            ),
        }
    }
}

/// The model the settings choose; `asked` (a value and where it was given: `ai --pull NAME`,
/// `/model NAME`) beats them.
pub(crate) fn choose(
    local: &LocalSettings,
    asked: Option<(&str, &str)>,
) -> Result<LocalModel, ChooseError> {
    let (value, origin) = match (asked, &local.model_path, &local.model) {
        (Some((asked, origin)), _, _) => (asked.to_string(), origin.to_string()),
        (None, Some(path), _) => return Ok(file_model(path)),
        (None, None, Some(model)) => (model.clone(), local.model_origin.clone()),
        (None, None, None) => (DEFAULT_MODEL.to_string(), "the default".to_string()),
    };
    let value = value.trim();
    if value.starts_with("http://") || value.starts_with("https://") {
        let name = value
            .rsplit('/')
            .next()
            .and_then(|n| n.split(['?', '#']).next())
            .filter(|n| !n.is_empty() && *n != "." && *n != "..")
            .unwrap_or("model.gguf")
            .to_string();
        let dir = local.models_dir.as_ref().ok_or(ChooseError::NoCacheDir)?;
        return Ok(LocalModel {
            file: dir.join(&name),
            name,
            download: Some(Download {
                url: local.model_url.clone().unwrap_or_else(|| value.to_string()),
                size: None,
                shown_size: None,
                sha256: local.model_sha256.clone(),
                pull: value.to_string(),
            }),
            entry: None,
        });
    }
    if value.contains('/') || value.to_ascii_lowercase().ends_with(".gguf") {
        return Ok(file_model(Path::new(value)));
    }
    let entry = catalogue::find(value).ok_or_else(|| ChooseError::Unknown {
        value: value.to_string(),
        origin,
    })?;
    let dir = local.models_dir.as_ref().ok_or(ChooseError::NoCacheDir)?;
    // A checksum of one's own names the file by its hash: the pinned size is for the file of
    // the catalogue, which a mirror with another checksum does not serve.
    let own_sha = local.model_sha256.clone();
    Ok(LocalModel {
        name: entry.name.to_string(),
        file: dir.join(entry.file),
        download: Some(Download {
            url: local
                .model_url
                .clone()
                .unwrap_or_else(|| entry.url.to_string()),
            size: entry.size.exact().filter(|_| own_sha.is_none()),
            shown_size: Some(entry.size.bytes()),
            sha256: own_sha.or_else(|| entry.sha256.map(String::from)),
            pull: entry.name.to_string(),
        }),
        entry: Some(entry),
    })
}

fn file_model(path: &Path) -> LocalModel {
    LocalModel {
        name: path
            .file_stem()
            .map_or_else(|| "local".into(), |n| n.to_string_lossy().into_owned()),
        file: path.to_path_buf(),
        download: None,
        entry: None,
    }
}

/// What is on disk where the model should be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OnDisk {
    Missing,
    /// There, of the right size, and verified when it was downloaded.
    Ready,
    /// There, but not the file expected: why.
    Bad(String),
}

impl LocalModel {
    /// Where the SHA-256 verified at download is recorded.
    pub(crate) fn sidecar(&self) -> PathBuf {
        sidecar_of(&self.file)
    }

    /// A quick look (no hashing): the size, and the recorded SHA-256 against the expected one.
    pub(crate) fn on_disk(&self) -> OnDisk {
        let Ok(meta) = std::fs::metadata(&self.file) else {
            return OnDisk::Missing;
        };
        let Some(download) = &self.download else {
            return OnDisk::Ready;
        };
        if let Some(size) = download.size
            && meta.len() != size
        {
            return OnDisk::Bad(format!(
                "{} is {} bytes, not the {size} expected",
                self.file.display(),
                meta.len()
            ));
        }
        match (recorded_sha(&self.file), &download.sha256) {
            (None, _) => OnDisk::Bad(format!(
                "{} was not verified (no {} beside it)",
                self.file.display(),
                self.sidecar().display()
            )),
            (Some(recorded), Some(expected)) if recorded != *expected => OnDisk::Bad(format!(
                "{} has SHA-256 {recorded}, expected {expected}",
                self.file.display()
            )),
            _ => OnDisk::Ready,
        }
    }

    /// The whole file hashed and checked against the expected or recorded SHA-256 (reads the
    /// whole file: call it off the async runtime). `Ok` with the hash, else why it is not it.
    pub(crate) fn verify(&self) -> Result<String, String> {
        let actual = sha256_of(&self.file)?;
        let Some(download) = &self.download else {
            return Ok(actual);
        };
        if let Some(size) = download.size {
            let len = std::fs::metadata(&self.file).map_or(0, |m| m.len());
            if len != size {
                return Err(format!("it is {len} bytes, not the {size} expected"));
            }
        }
        match download.sha256.clone().or_else(|| recorded_sha(&self.file)) {
            Some(expected) if expected == actual => Ok(actual),
            Some(expected) => Err(format!("SHA-256 {actual}, expected {expected}")),
            None => Err("no SHA-256 was recorded when it was downloaded".into()),
        }
    }

    /// The size to tell the user, when known.
    pub(crate) fn shown_size(&self) -> Option<u64> {
        self.download.as_ref().and_then(|d| d.shown_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> LocalSettings {
        LocalSettings {
            model: None,
            model_origin: "SWEBASH_AI_MODEL".into(),
            model_path: None,
            model_url: None,
            model_sha256: None,
            ctx: 4096,
            threads: 2,
            models_dir: Some(PathBuf::from("/cache/models")),
        }
    }

    #[test]
    fn nothing_named_is_the_default_model_of_the_catalogue() {
        let model = choose(&settings(), None);
        let model = model.as_ref().ok();
        assert_eq!(model.map(|m| m.name.as_str()), Some(DEFAULT_MODEL));
        assert_eq!(
            model.map(|m| m.file.clone()),
            Some(PathBuf::from("/cache/models/Qwen3-1.7B-Q4_K_M.gguf"))
        );
        let download = model.and_then(|m| m.download.clone());
        assert_eq!(download.as_ref().and_then(|d| d.size), Some(1_107_409_472));
        assert_eq!(download.map(|d| d.pull).as_deref(), Some(DEFAULT_MODEL));
    }

    #[test]
    fn a_name_a_path_and_a_url_each_choose_their_kind() {
        let named = |value: &str| {
            choose(
                &LocalSettings {
                    model: Some(value.into()),
                    ..settings()
                },
                None,
            )
        };
        let small = named("SmolLM2-135M").ok();
        assert_eq!(
            small.as_ref().map(|m| m.name.as_str()),
            Some("smollm2-135m")
        );
        assert!(
            small
                .and_then(|m| m.download)
                .is_some_and(|d| d.sha256.is_some() && d.size == Some(98_362_432))
        );
        let file = named("./models/mine.gguf").ok();
        assert_eq!(
            file.as_ref().map(|m| m.file.clone()),
            Some(PathBuf::from("./models/mine.gguf"))
        );
        assert!(file.is_some_and(|m| m.download.is_none()));
        let url = named("https://example.org/m/tiny.gguf?download=true").ok();
        assert_eq!(
            url.as_ref().map(|m| m.file.clone()),
            Some(PathBuf::from("/cache/models/tiny.gguf"))
        );
        assert_eq!(
            url.and_then(|m| m.download).map(|d| d.pull).as_deref(),
            Some("https://example.org/m/tiny.gguf?download=true")
        );
        assert_eq!(
            named("gpt-4o").err(),
            Some(ChooseError::Unknown {
                value: "gpt-4o".into(),
                origin: "SWEBASH_AI_MODEL".into()
            })
        );
    }

    #[test]
    fn a_mirror_keeps_the_pins_and_a_checksum_of_ones_own_replaces_them() {
        let mirrored = choose(
            &LocalSettings {
                model_url: Some("http://mirror/x.gguf".into()),
                ..settings()
            },
            Some(("smollm2-135m", "--pull")),
        )
        .ok()
        .and_then(|m| m.download);
        assert_eq!(
            mirrored.as_ref().map(|d| d.url.as_str()),
            Some("http://mirror/x.gguf")
        );
        assert_eq!(mirrored.and_then(|d| d.size), Some(98_362_432));
        let own = choose(
            &LocalSettings {
                model_sha256: Some("a".repeat(64)),
                ..settings()
            },
            Some(("smollm2-135m", "--pull")),
        )
        .ok()
        .and_then(|m| m.download);
        assert_eq!(own.as_ref().and_then(|d| d.size), None);
        assert_eq!(own.and_then(|d| d.sha256), Some("a".repeat(64)));
    }

    #[test]
    fn a_file_on_disk_is_ready_only_with_its_size_and_recorded_checksum() {
        let dir = tempfile::tempdir().ok();
        let Some(dir) = dir else { return };
        let model = LocalModel {
            name: "tiny".into(),
            file: dir.path().join("tiny.gguf"),
            download: Some(Download {
                url: "http://h/tiny.gguf".into(),
                size: Some(4),
                shown_size: Some(4),
                sha256: None,
                pull: "tiny".into(),
            }),
            entry: None,
        };
        assert_eq!(model.on_disk(), OnDisk::Missing);
        let _ = std::fs::write(&model.file, b"abcd");
        assert!(matches!(model.on_disk(), OnDisk::Bad(why) if why.contains("not verified")));
        let sha = sha256_of(&model.file).unwrap_or_default();
        let _ = std::fs::write(model.sidecar(), format!("{sha}  tiny.gguf\n"));
        assert_eq!(model.on_disk(), OnDisk::Ready);
        assert_eq!(model.verify(), Ok(sha));
        let _ = std::fs::write(&model.file, b"abcde");
        assert!(matches!(model.on_disk(), OnDisk::Bad(why) if why.contains("5 bytes")));
        let _ = std::fs::write(&model.file, b"abce");
        assert!(model.verify().is_err_and(|why| why.contains("expected")));
    }
}
